// Verification and labelling: one of a few labels, chosen by number.

import { h } from "../../dom";
import type { EvidenceState, Item } from "../../ipc";
import type { BodyHooks, Draft, ItemBody } from "./body";
import { claimText } from "./chrome";
import { diffView, wordDiff } from "./diff";
import type { WorkDraft } from "./draft";
import { CHOICES, type KeyAction } from "./keys";

/** What a label item's evidence is, as its heading and a line saying where it came from. */
export function evidenceHeading(state: EvidenceState | null): { title: string; note: string | null; settled: boolean } {
  switch (state?.state) {
    case "adjudicated":
      return { title: "Settled evidence", note: "Decided by the lead.", settled: true };
    case "majority":
      // No count of answers: an annotator is shown nothing of other people's answers.
      return { title: "Settled evidence", note: "Settled in the evidence step.", settled: true };
    case "imported":
      return { title: "Settled evidence", note: "Given with the claim when it was imported.", settled: true };
    case "not_settled":
      return {
        title: "Candidate sentences",
        note: "Evidence not settled yet: these are the claim's candidate sentences, not the evidence the evidence step settled on.",
        settled: false,
      };
    case "no_evidence_step":
      return {
        title: "Candidate sentences",
        note: "This claim has no evidence step: these are the sentences found for it, not settled evidence.",
        settled: false,
      };
    default:
      // An item from a pack made before label items said where their evidence came from.
      return { title: "Evidence", note: null, settled: true };
  }
}

function evidenceList(item: Item): HTMLElement {
  const state = item.evidence_state;
  const { title, note, settled } = evidenceHeading(state);
  const noteEl = note
    ? h("p", { class: settled ? "evidence-source" : "evidence-source unsettled", testid: "evidence-state" }, note)
    : null;
  // Where the sentences come from, for styling and for tests: the state's name.
  const sectionAttrs = {
    class: settled ? "evidence-list" : "evidence-list unsettled",
    testid: "evidence-section",
    "data-state": state?.state ?? "unknown",
  };
  if (item.evidence.length === 0) {
    const empty =
      settled && state
        ? "The evidence step settled on no evidence: none of the candidate sentences is evidence for this claim."
        : "This claim has no evidence sentences.";
    return h(
      "section",
      sectionAttrs,
      h("h2", {}, title),
      h("p", { class: "muted", testid: "item-evidence" }, empty),
      noteEl,
    );
  }
  return h(
    "section",
    sectionAttrs,
    h("h2", {}, title),
    noteEl,
    // Bullets, not numbers: on this screen the digits choose a label.
    h("ul", { testid: "item-evidence" }, ...item.evidence.map((s) => h("li", { dir: "auto" }, s))),
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
