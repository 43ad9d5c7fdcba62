import { describe, expect, it } from "vitest";
import { questionCell, questionsPanel, unitText } from "./dashboard-questions";
import type { QuestionStatistics } from "../ipc";

const stat = (metric: string, value: number | null) => ({
  metric,
  value,
  reason: value === null ? "no variation: every rating is the same category" : null,
  ci95: value === null ? null : ([0.4, 0.8] as [number, number]),
  reading: value === null ? null : "uncertain",
});

const question = (id: string, unit: string, values: (number | null)[]): QuestionStatistics => ({
  question: id,
  unit,
  units: 12,
  annotators: 3,
  statistics: ["fleiss_kappa", "krippendorff_alpha_nominal", "cohen_kappa_mean_pairwise", "percent_agreement"].map((m, i) =>
    stat(m, values[i] ?? null),
  ),
});

describe("the dashboard's design questions", () => {
  it("shows each question on its own unit, values with their reading and interval on hover", () => {
    const panel = questionsPanel([question("relation", "item", [0.6, 0.61, 0.62, 0.8]), question("salient", "token", [null, null, null, 1])]);
    expect(panel).not.toBeNull();
    const row = panel?.querySelector('[data-testid="dash-question-relation"]');
    const cells = [...(row?.querySelectorAll("td") ?? [])].map((c) => c.textContent);
    expect(cells).toEqual([
      "relation",
      "12 items, 3 annotators",
      "0.600 uncertain95% CI 0.400 – 0.800",
      "0.610 uncertain95% CI 0.400 – 0.800",
      "0.620 uncertain95% CI 0.400 – 0.800",
      "80%",
    ]);
    expect(row?.querySelectorAll("td")[2]?.getAttribute("title")).toBe("Fleiss' κ");
    const words = panel?.querySelector('[data-testid="dash-question-salient"]');
    expect(words?.querySelectorAll("td")[1]?.textContent).toBe("12 words, 3 annotators");
    expect(words?.querySelectorAll("td")[2]?.getAttribute("title")).toContain("no variation");
  });

  it("names what a unit is, and draws nothing without a design", () => {
    expect(unitText({ ...question("t", "item and label", []), units: 1200 })).toBe("1\u202f200 items × labels");
    expect(questionCell(stat("fleiss_kappa", null)).text).toBe("—");
    expect(questionsPanel([])).toBeNull();
  });
});
