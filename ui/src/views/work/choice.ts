// Verification and labelling: one of a few labels, chosen by number.

import { h } from "../../dom";
import type { Item } from "../../ipc";
import type { BodyHooks, Draft, ItemBody } from "./body";
import { claimText } from "./chrome";
import { diffView, wordDiff } from "./diff";
import type { WorkDraft } from "./draft";
import { CHOICES, type KeyAction } from "./keys";

function evidenceList(item: Item): HTMLElement {
  if (item.evidence.length === 0) {
    return h("p", { class: "muted", testid: "item-evidence" }, "This claim has no evidence sentences.");
  }
  return h(
    "section",
    { class: "evidence-list" },
    h("h2", {}, "Evidence"),
    h("ol", { testid: "item-evidence" }, ...item.evidence.map((s) => h("li", { dir: "auto" }, s))),
  );
}

/** The counter-claim, with the words that differ from the original marked. */
function counterClaim(item: Item): HTMLElement {
  const counter = item.counter_claim ?? "";
  return h(
    "section",
    { class: "claim-card counter" },
    h("div", { class: "claim-label" }, "New claim ", h("span", { class: "diff-legend" }, "changed words marked")),
    claimText(counter, "item-counter-claim", diffView(wordDiff(item.claim, counter).b, "added")),
  );
}

export function choiceBody(item: Item, hooks: BodyHooks, kept: WorkDraft | null = null): ItemBody {
  const kind = item.kind === "verify" ? "verify" : "label";
  const choices = CHOICES[kind] ?? [];
  let chosen = choices.findIndex((c) => c.value === (kept ? kept.label : item.previous?.label));

  const buttons = choices.map((c, i) =>
    h(
      "button",
      {
        class: `choice choice-${i + 1}`,
        testid: `${kind}-${i + 1}`,
        title: c.value === "FAILED" ? "The claim itself is malformed" : c.title,
        "data-value": c.value,
        onclick: () => choose(i),
      },
      h("span", { class: "option-key", "aria-hidden": "true" }, String(i + 1)),
      c.title,
    ),
  );

  function paint(): void {
    buttons.forEach((b, i) => {
      b.classList.toggle("selected", i === chosen);
      b.setAttribute("aria-pressed", String(i === chosen));
    });
  }

  function choose(i: number): void {
    chosen = i;
    paint();
    hooks.changed();
  }

  paint();
  return {
    el: h(
      "div",
      { class: "choice-body" },
      kind === "verify" ? counterClaim(item) : evidenceList(item),
      h("div", { class: "choices", role: "group", "aria-label": "Answer" }, ...buttons),
    ),
    count: choices.length,
    act(action: KeyAction): boolean {
      if (action.type !== "choose") return false;
      choose(action.index);
      return true;
    },
    ready: () => chosen >= 0,
    keep: () => {
      const c = choices[chosen];
      return c ? { label: c.value } : {};
    },
    async draft(): Promise<Draft> {
      const c = choices[chosen];
      if (!c) return { blocked: `Choose an answer first (1–${choices.length}).` };
      return { answer: { label: c.value } };
    },
  };
}
