import { describe, expect, it, vi } from "vitest";
import type { Item } from "../../ipc";
import { claimCard } from "./chrome";

const item: Item = {
  task_id: 1,
  kind: "evidence",
  claim: "The harbour wall was finished in 1902.",
  context: "地元紙の記事",
  options: [],
  counter_claim: null,
  evidence: [],
  evidence_state: null,
  guidelines: "",
  previous: null,
  pace: { done: 0, total: 1, per_hour: null, minutes_left: null, more: false },
  shows: null,
  questions: [],
};

describe("the claim card's context", () => {
  it("records the annotator's choice only when they open or fold it, not the open it starts with", () => {
    const chose = vi.fn();
    const details = claimCard("Claim", item, true, chose).el.querySelector("details");
    if (!details) throw new Error("no context");
    // The "toggle" that setting `open` fires by itself is not a choice.
    details.dispatchEvent(new Event("toggle"));
    expect(chose).not.toHaveBeenCalled();
    details.open = false;
    details.dispatchEvent(new Event("toggle"));
    expect(chose).toHaveBeenCalledWith(false);
  });
});
