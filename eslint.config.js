// Lint rules for the UI and the end-to-end tests.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

// Imported text is untrusted web text: the UI builds DOM only from text nodes (ui/src/dom.ts).
const htmlSinks = "innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|write|writeln";
const noHtml = "Render text with h() from ui/src/dom.ts; never parse strings as HTML.";

export default tseslint.config(
  { ignores: ["ui/dist/**", "node_modules/**", "target/**", "src-tauri/**", ".demo/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["ui/**/*.ts"],
    languageOptions: { globals: globals.browser },
    rules: {
      "no-restricted-properties": [
        "error",
        { property: "innerHTML", message: noHtml },
        { property: "outerHTML", message: noHtml },
        { property: "insertAdjacentHTML", message: noHtml },
        { property: "createContextualFragment", message: noHtml },
        { object: "document", property: "write", message: noHtml },
        { object: "document", property: "writeln", message: noHtml },
      ],
      "no-restricted-syntax": [
        "error",
        // Catches computed access too: el["innerHTML"], el[`outerHTML`].
        { selector: `MemberExpression[property.value=/^(${htmlSinks})$/]`, message: noHtml },
        { selector: `MemberExpression > TemplateLiteral.property[quasis.0.value.raw=/^(${htmlSinks})$/]`, message: noHtml },
        { selector: "NewExpression[callee.name='DOMParser']", message: noHtml },
      ],
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@tauri-apps/*"], message: "Only ui/src/ipc talks to the backend." }] },
      ],
    },
  },
  {
    files: ["ui/src/ipc/**/*.ts"],
    rules: { "no-restricted-imports": "off" },
  },
  {
    files: ["tests/e2e/**/*.mjs"],
    languageOptions: { globals: globals.node },
  },
);
