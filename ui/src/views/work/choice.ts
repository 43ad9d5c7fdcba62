// Verification and labelling: one of a few labels, chosen by number.

import { h } from "../../dom";
import type { Item } from "../../ipc";
import type { BodyHooks, Draft, ItemBody } from "./body";
import { CHOICES, type KeyAction } from "./keys";

function evidenceList(item: Item): HTMLElement {
  if (item.evidence.length === 0) {
    return h("p", { class: "muted", testid: "item-evidence" }, "This claim has no evidence sentences.");
  }
  return h(
    "section",
    { class: "evidence-list" },
    h("h2", {}, "Evidence"),
    h("ol", { testid: "item-evidence" }, ...item.evidence.map((s) => h("li", {}, s))),
  );
}

function counterClaim(item: Item): HTMLElement {
  return h(
    "section",
    { class: "claim-card counter" },
    h("div", { class: "claim-label" }, "New claim"),
    h("p", { class: "claim", testid: "item-counter-claim" }, item.counter_claim ?? ""),
  );
}

export function choiceBody(item: Item, hooks: BodyHooks): ItemBody {
  const kind = item.kind === "verify" ? "verify" : "label";
  const choices = CHOICES[kind] ?? [];
  let chosen = choices.findIndex((c) => c.value === item.previous?.label);

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
    async draft(): Promise<Draft> {
      const c = choices[chosen];
      if (!c) return { blocked: `Choose an answer first (1–${choices.length}).` };
      return { answer: { label: c.value } };
    },
  };
}
