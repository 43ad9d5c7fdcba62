import { describe, expect, it } from "vitest";
import type { EvidenceState, Item } from "../../ipc";
import { choiceBody } from "./choice";

function label(evidence: string[], state: EvidenceState | null): Item {
  return {
    task_id: 4,
    kind: "label",
    claim: "The bridge opened in 1826.",
    context: null,
    options: [],
    counter_claim: null,
    text_b: null,
    evidence,
    evidence_state: state,
    guidelines: "",
    previous: null,
    pace: { done: 0, total: 1, per_hour: null, minutes_left: null, more: false },
    shows: null,
    questions: [],
  };
}

const hooks = { side: () => {}, changed: () => {} };
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const shown = (el: HTMLElement) => [...(q(el, "item-evidence")?.querySelectorAll("li") ?? [])].map((li) => li.textContent);

describe("a label item's evidence", () => {
  it("shows the settled sentences and says how they were settled", () => {
    const majority = choiceBody(label(["It opened in 1826."], { state: "majority" }), hooks).el;
    expect(shown(majority)).toEqual(["It opened in 1826."]);
    expect(q(majority, "evidence-section")?.dataset["state"]).toBe("majority");
    expect(q(majority, "evidence-section")?.querySelector("h2")?.textContent).toBe("Settled evidence");
    expect(q(majority, "evidence-state")?.textContent).toBe("Settled in the evidence step.");
    // No count of other people's answers: the item carries none to show.
    expect(q(majority, "item-evidence")?.textContent ?? "").not.toMatch(/\d+ answers?|one answer|majority/);

    const lead = choiceBody(label(["It opened in 1826."], { state: "adjudicated" }), hooks).el;
    expect(q(lead, "evidence-state")?.textContent).toBe("Decided by the lead.");
    const imported = choiceBody(label(["It opened in 1826."], { state: "imported" }), hooks).el;
    expect(q(imported, "evidence-state")?.textContent).toContain("imported");
  });

  it("says when the evidence step settled on no evidence", () => {
    const el = choiceBody(label([], { state: "majority" }), hooks).el;
    expect(q(el, "item-evidence")?.textContent).toContain("settled on no evidence");
    expect(q(el, "evidence-section")?.classList.contains("unsettled")).toBe(false);
  });

  it("marks candidates shown before the evidence is settled", () => {
    const el = choiceBody(label(["A.", "B.", "C."], { state: "not_settled" }), hooks).el;
    expect(shown(el)).toEqual(["A.", "B.", "C."]);
    const section = q(el, "evidence-section");
    expect(section?.classList.contains("unsettled")).toBe(true);
    expect(section?.querySelector("h2")?.textContent).toBe("Candidate sentences");
    expect(q(el, "evidence-state")?.textContent).toMatch(/^Evidence not settled yet/);

    const none = choiceBody(label(["A."], { state: "no_evidence_step" }), hooks).el;
    expect(q(none, "evidence-section")?.classList.contains("unsettled")).toBe(true);
    expect(q(none, "evidence-state")?.textContent).toContain("no evidence step");
  });

  it("shows an item from an older pack as plain evidence", () => {
    const el = choiceBody(label(["A."], null), hooks).el;
    expect(shown(el)).toEqual(["A."]);
    expect(q(el, "evidence-state")).toBeNull();
    expect(q(el, "evidence-section")?.querySelector("h2")?.textContent).toBe("Evidence");
  });
});
