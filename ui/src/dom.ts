// Building the DOM from data. Imported text is untrusted web text, so it only ever
// becomes text nodes: nothing here parses a string as HTML.

export type Child = Node | string | number | null | undefined | false;

export interface Attrs {
  id?: string;
  class?: string;
  testid?: string;
  title?: string;
  role?: string;
  type?: string;
  disabled?: boolean;
  placeholder?: string;
  /** "auto" on every piece of user text, so Arabic or Hebrew reads right to left. */
  dir?: "auto" | "ltr" | "rtl";
  tabindex?: string;
  onclick?: (ev: MouseEvent) => void;
  [aria: `aria-${string}`]: string;
  [data: `data-${string}`]: string;
}

/** Letters of scripts written right to left: Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms. */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
/** Any letter. */
const LETTER = /\p{L}/u;

/**
 * The direction of `text` by its first strong letter, as `dir="auto"` decides it: for a
 * row whose parts (a key, the text, a button) should mirror with the text it holds.
 */
export function textDirection(text: string): "ltr" | "rtl" {
  for (const ch of text) {
    if (RTL_LETTER.test(ch)) return "rtl";
    if (LETTER.test(ch)) return "ltr";
  }
  return "ltr";
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (key === "class") el.className = String(value);
    else if (key === "testid") el.dataset["testid"] = String(value);
    else if (key === "onclick") el.addEventListener("click", value as (ev: Event) => void);
    else if (key === "disabled") (el as HTMLButtonElement).disabled = Boolean(value);
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `parent` with `children`. */
export function mount(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
