import { describe, expect, it } from "vitest";
import { tasksText } from "./lead";

describe("lead's task creation", () => {
  it("says how many claims got no task and why", () => {
    const text = tasksText({
      kind: "evidence",
      created: 99,
      existing: 0,
      overlap: 3,
      skipped: [
        { reason: "no_documents", message: "no documents", count: 4, claims: ["a", "b", "c", "d"] },
        { reason: "evidence_from_parent", message: "a refutation whose evidence comes from its parent", count: 201, claims: [] },
      ],
    });
    expect(text).toBe(
      "99 created, 0 already there (overlap 3); 4 claims got none: no documents; 201 claims got none: a refutation whose evidence comes from its parent",
    );
  });
});
