// Refutation writing: the annotator edits the claim into one that is false if the
// original is true; the backend's checks run on every keystroke and block submitting
// until they all pass.

import { h, mount } from "../../dom";
import { errorText } from "../../errors";
import { api, type Check, type Item } from "../../ipc";
import type { BodyHooks, Draft, ItemBody } from "./body";
import type { WorkDraft } from "./draft";
import type { KeyAction } from "./keys";

const CHECK_TITLES: Record<string, string> = {
  empty: "Written",
  identical: "Changed",
  length: "Same length",
  negation_only: "Not just a negation",
  subject: "Same subject",
};

/** Whether every check that ran passed. */
export function allPassed(checks: Check[]): boolean {
  return checks.every((c) => c.passed);
}

export function refuteBody(item: Item, hooks: BodyHooks, kept: WorkDraft | null = null): ItemBody {
  // Starting from the original makes the usual edit (a number, a name, a place) a few
  // keystrokes; the "changed" check keeps it from going through untouched.
  const input = h("input", {
    class: "refute-input",
    testid: "refute-input",
    type: "text",
    "aria-label": "Your refuted claim",
    dir: "auto",
  });
  input.value = kept?.text ?? item.previous?.text ?? item.claim;
  // A written claim holds what an imported one may (MAX_CLAIM_CHARS on the backend).
  input.maxLength = 2000;
  input.spellcheck = true;
  const list = h("ul", { class: "checks", testid: "checks", "aria-live": "polite" });
  const note = h("p", { class: "refute-note", testid: "refute-error", role: "status" });

  let checks: Check[] = [];
  let checkedText: string | null = null;
  let asked = 0;

  function paint(): void {
    mount(
      list,
      ...checks.map((c) =>
        h(
          "li",
          { class: c.passed ? "check pass" : "check fail", testid: `check-${c.kind}`, "data-passed": String(c.passed) },
          h("span", { class: "check-mark", "aria-hidden": "true" }, c.passed ? "✓" : "✗"),
          h("span", { class: "check-title" }, CHECK_TITLES[c.kind] ?? c.kind),
          h("span", { class: "check-message", dir: "auto" }, c.message),
        ),
      ),
    );
  }

  /** Checks the current text; an answer that arrives after a newer question is dropped. */
  async function check(): Promise<void> {
    const text = input.value;
    const mine = ++asked;
    try {
      const got = await api.checkRefutation(item.task_id, text);
      if (mine !== asked) return;
      checks = got;
      checkedText = text;
      if (allPassed(got)) mount(note);
      paint();
      hooks.changed();
    } catch (e) {
      if (mine === asked) mount(note, errorText(e));
    }
  }

  input.addEventListener("input", () => {
    hooks.changed();
    void check();
  });
  void check();

  return {
    el: h(
      "section",
      { class: "refute" },
      h("div", { class: "field-label" }, "Your refuted claim"),
      input,
      list,
      note,
    ),
    count: 0,
    act(action: KeyAction): boolean {
      if (action.type !== "write") return false;
      input.focus();
      return true;
    },
    ready: () => checkedText === input.value && allPassed(checks),
    keep: () => ({ text: input.value }),
    async draft(): Promise<Draft> {
      if (checkedText !== input.value) await check();
      const failed = checks.filter((c) => !c.passed);
      if (failed.length === 0 && checkedText === input.value) return { answer: { text: input.value.trim() } };
      return { blocked: failed.map((c) => c.message).join(" ") || "Wait for the checks to finish." };
    },
    refused(message: string): void {
      mount(note, "Not submitted: ", message);
    },
    focus(): void {
      input.focus();
      input.setSelectionRange(input.value.length, input.value.length);
    },
  };
}
