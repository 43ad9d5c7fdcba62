import { describe, expect, it } from "vitest";
import type { Dashboard, Statistic } from "../ipc";
import { heatColour, intervalText, paceText, renderDashboard, statText } from "./dashboard";

const stat = (value: number | null, ci95: [number, number] | null, reason: string | null = null): Statistic => ({
  metric: "fleiss_kappa",
  value,
  reason,
  ci95,
  reading: value === null ? null : "moderate",
});

describe("dashboard", () => {
  it("prints statistics to three decimals and says why one is missing", () => {
    expect(statText(0.51234)).toBe("0.512");
    expect(statText(null)).toBe("—");
    expect(intervalText(stat(0.5, [0.41, 0.6]))).toBe("95% CI 0.410 – 0.600");
    expect(intervalText(stat(0.5, null), true)).toBe("95% interval being computed…");
    expect(intervalText(stat(0.5, null))).toBe("no 95% interval: too few items to resample");
    expect(intervalText(stat(null, null, "fewer than 2 annotators"))).toBe("fewer than 2 annotators");
    expect(paceText(null)).toBe("—");
    expect(paceText(1234.4)).toBe("1\u202f234/h");
  });

  it("colours the heatmap from white to deep blue, red below zero, with readable text", () => {
    expect(heatColour(1).light).toBe(true);
    expect(heatColour(0.1).light).toBe(false);
    expect(heatColour(-0.5).background).toMatch(/^hsl\(4 /);
    expect(heatColour(null).background).toBe("#eef1f5");
  });

  it("draws each kind with its values, pairs and people", () => {
    const d: Dashboard = {
      last_annotation_id: 9,
      intervals_as_of: 9,
      studies: [],
      kinds: [
        {
          kind: "label",
          units: 3,
          annotators: 2,
          answers: 6,
          fleiss: stat(0.25, [0.1, 0.4]),
          alpha: { ...stat(0.3, null), metric: "krippendorff_alpha_nominal" },
          masi: null,
          pairs: [{ a: "ana", b: "ben", units: 3, value: 0.25, reason: null }],
          people: [
            { name: "ana", counted: true, flagged: false, answers: 3, rejected: 0, active_ms: 9000, pace_per_hour: 1200, tricks_seen: 0, trick_failure_rate: null, majority_units: 3, majority_agreement: 2 / 3 },
            { name: "ben", counted: false, flagged: true, answers: 3, rejected: 1, active_ms: 0, pace_per_hour: null, tricks_seen: 4, trick_failure_rate: 0.75, majority_units: 0, majority_agreement: null },
          ],
          series: [
            { answers: 2, at_ms: 1, value: 1 },
            { answers: 6, at_ms: 2, value: 0.25 },
          ],
        },
      ],
    };
    const [panel] = renderDashboard(d);
    const q = (id: string): string => panel?.querySelector(`[data-testid="${id}"]`)?.textContent ?? "";
    expect(q("fleiss-label")).toBe("0.250");
    expect(q("fleiss-label-ci")).toBe("95% CI 0.100 – 0.400");
    expect(q("pair-label-ana-ben")).toBe("0.250");
    expect(q("pair-label-ben-ana")).toBe("0.250");
    expect(q("majority-label-ana")).toBe("67% of 3");
    expect(q("activity-label-ben")).toContain("FLAGGED");
    expect(panel?.querySelector("polyline")?.getAttribute("points")?.split(" ")).toHaveLength(2);
  });

  it("shows alpha with MASI distance for evidence and each annotator's rejected answers", () => {
    const d: Dashboard = {
      last_annotation_id: 4,
      intervals_as_of: 4,
      studies: [],
      kinds: [
        {
          kind: "evidence",
          units: 2,
          annotators: 2,
          answers: 4,
          fleiss: { ...stat(0.4, null), metric: "setsel_pooled_fleiss_kappa" },
          alpha: { ...stat(0.41, null), metric: "setsel_pooled_krippendorff_alpha_nominal" },
          masi: { ...stat(0.372, [0.1, 0.6]), metric: "setsel_masi_krippendorff_alpha" },
          pairs: [],
          people: [
            { name: "caro", counted: true, flagged: false, answers: 3, rejected: 1, active_ms: 0, pace_per_hour: null, tricks_seen: 3, trick_failure_rate: 1 / 3, majority_units: 0, majority_agreement: null },
          ],
          series: [],
        },
      ],
    };
    const [panel] = renderDashboard(d);
    const q = (id: string): string => panel?.querySelector(`[data-testid="${id}"]`)?.textContent ?? "";
    expect(q("masi-evidence")).toBe("0.372");
    expect(q("masi-evidence-ci")).toBe("95% CI 0.100 – 0.600");
    expect(q("rejected-evidence-caro")).toBe("1");
  });

  it("says when there is nothing to compare yet", () => {
    const [empty] = renderDashboard({ last_annotation_id: 0, intervals_as_of: null, kinds: [], studies: [] });
    expect(empty?.textContent).toContain("No answers yet");
  });
});
