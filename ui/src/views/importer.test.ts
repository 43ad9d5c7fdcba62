import { describe, expect, it } from "vitest";
import { importSummary, progressLabel } from "./importer";

describe("import panel", () => {
  it("says how far an import has come", () => {
    expect(progressLabel({ phase: "ranking", done: 1200, total: 4086 })).toBe("Ranking: 1\u202f200 of 4\u202f086");
    expect(progressLabel({ phase: "reading", done: 0, total: 0 })).toBe("Reading…");
  });

  it("adds the rate and the time left once the phase has run a moment", () => {
    const p = { phase: "ranking", done: 20000, total: 100000 };
    expect(progressLabel(p, 2000)).toBe("Ranking: 20\u202f000 of 100\u202f000, 10\u202f000/s, 8 s left");
    expect(progressLabel({ ...p, done: 1000 }, 2000)).toBe("Ranking: 1\u202f000 of 100\u202f000, 500/s, 4 min left");
    expect(progressLabel(p, 100)).toBe("Ranking: 20\u202f000 of 100\u202f000");
    expect(progressLabel({ ...p, done: 0 }, 5000)).toBe("Ranking: 0 of 100\u202f000");
  });

  it("sums up what an import did", () => {
    const report = {
      files: ["claims.jsonl"],
      rows: 31,
      claims_added: 30,
      documents_added: 1,
      sentences_added: 12,
      unchanged: 1,
      rejected: 0,
      rejects_files: [],
      rejects_file: null,
      claims_ranked: 30,
      evidence_stance: null,
      gold_only_candidates: 0,
    };
    expect(importSummary(report)).toBe(
      "30 claims added, 1 document, 12 sentences, 30 claims ranked, 1 row already there.",
    );
    expect(importSummary({ ...report, evidence_stance: "supports" })).toBe(
      "30 claims added, 1 document, 12 sentences, 30 claims ranked, 1 row already there. Evidence tasks ask for sentences that support the claim.",
    );
    expect(importSummary({ ...report, gold_only_candidates: 30 })).toContain(
      "Every candidate of 30 claims is its own published evidence: add distractors before evidence tasks",
    );
  });
});
