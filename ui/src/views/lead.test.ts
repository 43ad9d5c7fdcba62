import { describe, expect, it } from "vitest";
import { noTaskLines, tasksText } from "./lead";

describe("lead's task creation", () => {
  it("says how many claims got no task and why", () => {
    const text = tasksText({
      kind: "evidence",
      created: 99,
      existing: 0,
      overlap: 3,
      existing_overlaps: [],
      without_trick: 0,
      tricks_unlike_options: 0,
      skipped: [
        { reason: "no_documents", message: "no documents", count: 4, claims: ["a", "b", "c", "d"] },
        { reason: "evidence_from_parent", message: "a refutation whose evidence comes from its parent", count: 201, claims: [] },
      ],
    });
    expect(text).toBe(
      "99 created (overlap 3); 4 claims got none: no documents; 201 claims got none: a refutation whose evidence comes from its parent",
    );
  });

  it("says how many evidence items show no trick", () => {
    const text = tasksText({ kind: "evidence", created: 2, existing: 0, overlap: 3, existing_overlaps: [], without_trick: 2, tricks_unlike_options: 0, skipped: [] });
    expect(text).toBe("2 created (overlap 3); 2 show no trick: no unrelated sentence was found for them");
  });

  it("gives the tasks already there the overlap they were made with, not the one asked for", () => {
    const text = tasksText({ kind: "evidence", created: 0, existing: 30, overlap: 3, existing_overlaps: [1], without_trick: 0, tricks_unlike_options: 0, skipped: [] });
    expect(text).toBe("none created, 30 already there (made with overlap 1)");
    expect(text).not.toContain("overlap 3");
  });

  it("lists the claims that got no task, by kind and reason", () => {
    const lines = noTaskLines([
      { kind: "evidence", reason: "no_documents", message: "no documents", count: 1 },
      { kind: "label", reason: "evidence_from_parent", message: "a refutation whose evidence comes from its parent", count: 8 },
    ]);
    expect(lines).toEqual([
      "1 claim got no evidence task: no documents",
      "8 claims got no label task: a refutation whose evidence comes from its parent",
    ]);
  });
});
