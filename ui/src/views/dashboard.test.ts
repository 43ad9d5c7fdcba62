import { describe, expect, it } from "vitest";
import type { Dashboard, Statistic } from "../ipc";
import {
  countsText,
  drawnBy,
  heatColour,
  intervalText,
  majorityUnit,
  mergeStudies,
  paceText,
  renderDashboard,
  renderStudies,
  statText,
  studyRequest,
  whyNoAgreement,
} from "./dashboard";

const stat = (value: number | null, ci95: [number, number] | null, reason: string | null = null): Statistic => ({
  metric: "fleiss_kappa",
  value,
  reason,
  ci95,
  reading: value === null ? null : "moderate",
});

/** A dashboard of one labelling kind: two annotators, one of them flagged. */
function labelDashboard(): Dashboard {
  return {
    last_annotation_id: 9,
    intervals_as_of: 9,
    studies: [],
    questions: [],
    kinds: [
      {
        kind: "label",
        units: 3,
        paired: 3,
        annotators: 2,
        answers: 6,
        fleiss: stat(0.25, [0.1, 0.4]),
        alpha: { ...stat(0.3, null), metric: "krippendorff_alpha_nominal" },
        masi: null,
        pairs_metric: "cohen_kappa",
        pairs_unit: "item",
        pairs: [{ a: "ana", b: "ben", units: 3, value: 0.25, reason: null }],
        people: [
          { name: "ana", counted: true, flagged: false, answers: 3, rejected: 0, active_ms: 9000, pace_per_hour: 1200, tricks_seen: 0, trick_failure_rate: null, trick_failure_ci95: null, majority_units: 3, majority_agreement: 2 / 3 },
          { name: "ben", counted: false, flagged: true, answers: 3, rejected: 1, active_ms: 0, pace_per_hour: null, tricks_seen: 4, trick_failure_rate: 0.75, trick_failure_ci95: null, majority_units: 0, majority_agreement: null },
        ],
        series: [
          { answers: 2, at_ms: 1, value: 1 },
          { answers: 6, at_ms: 2, value: 0.25 },
        ],
      },
    ],
  };
}

describe("dashboard", () => {
  it("prints statistics to three decimals and says why one is missing", () => {
    expect(statText(0.51234)).toBe("0.512");
    expect(statText(null)).toBe("—");
    expect(statText(-0.0612)).toBe("\u22120.061");
    expect(intervalText(stat(0.1, [-0.143, 0.4]))).toBe("95% CI \u22120.143 – 0.400");
    expect(intervalText(stat(0.5, [0.41, 0.6]))).toBe("95% CI 0.410 – 0.600");
    expect(intervalText(stat(0.5, null), true)).toBe("95% interval being computed…");
    expect(intervalText(stat(0.5, null))).toBe("no 95% interval: too few items to resample");
    expect(intervalText(stat(null, null, "fewer than 2 annotators"))).toBe("fewer than 2 annotators");
    expect(paceText(null)).toBe("—");
    expect(paceText(1234.4)).toBe("1\u202f234");
  });

  it("says how many items have two or more answers, and why kappa is missing", () => {
    const k = {
      kind: "evidence" as const,
      units: 45,
      paired: 0,
      annotators: 2,
      answers: 45,
      fleiss: stat(null, null, "no item has two ratings"),
      alpha: stat(null, null),
      masi: null,
      pairs_metric: "setsel_pooled_cohen_kappa",
      pairs_unit: "candidate sentence",
      pairs: [],
      people: [],
      series: [],
    };
    expect(countsText(k)).toBe("45 items · 0 with two or more answers · 2 annotators · 45 answers");
    // One of a thing is said so (issue 36: "1 annotators").
    expect(countsText({ ...k, units: 1, annotators: 1, answers: 1 })).toBe("1 item · 0 with two or more answers · 1 annotator · 1 answer");
    expect(whyNoAgreement(k)).toMatch(/^No item has two counted answers yet/);
    expect(whyNoAgreement({ ...k, paired: 1 })).toMatch(/^Only 1 item has two or more counted answers/);
  });

  it("colours the heatmap from white to deep blue, red below zero, with readable text", () => {
    expect(heatColour(1).light).toBe(true);
    expect(heatColour(0.1).light).toBe(false);
    expect(heatColour(-0.5).background).toMatch(/^hsl\(4 /);
    expect(heatColour(null).background).toBe("#eef1f5");
  });

  it("draws each kind with its values, pairs and people", () => {
    const d = labelDashboard();
    const [panel] = renderDashboard(d);
    const q = (id: string): string => panel?.querySelector(`[data-testid="${id}"]`)?.textContent ?? "";
    expect(q("fleiss-label")).toBe("0.250");
    expect(q("fleiss-label-ci")).toBe("95% CI 0.100 – 0.400");
    expect(q("pair-label-ana-ben")).toBe("0.250");
    expect(q("pair-label-ben-ana")).toBe("0.250");
    // Pairs have no interval (the api computes none): each κ shows its n, and the caption
    // says what n counts and that there is no interval (the walk of issue 36).
    expect(q("pair-n-label-ana-ben")).toBe("n 3");
    expect(q("pairs-caption-label")).toBe("n: items both rated. Pairs have no interval: weigh each κ by its n.");
    expect(panel?.querySelector("[data-testid=pair-label-ana-ben]")?.closest("[role=cell]")?.getAttribute("title")).toBe(
      "ana and ben: κ 0.250 over 3 shared items, no interval",
    );
    expect(q("majority-label-ana")).toBe("67% of 3 items");
    // Evidence is compared per candidate sentence, and says so (walk of session 27: "86% of
    // 132 items" on a task of 30 items).
    expect(majorityUnit("evidence")).toBe("sentence");
    expect(majorityUnit("label")).toBe("item");
    expect(q("activity-label-ben")).toContain("FLAGGED");
    // The pace is the backend's bounded figure per hour; none yet is a dash.
    expect(q("pace-label-ana")).toBe("1\u202f200");
    expect(q("pace-label-ben")).toBe("—");
    expect(panel?.querySelector("polyline")?.getAttribute("points")?.split(" ")).toHaveLength(2);
    // The chart's axes carry values: κ 0 and 1 on the left, the answers along the bottom.
    const labels = [...(panel?.querySelectorAll(".spark-label") ?? [])].map((t) => t.textContent);
    expect(labels).toEqual(["0", "1", "2", "6 answers"]);
    // Labelling has no trick sentence: no trick columns, so no column of dashes.
    const heads = [...(panel?.querySelectorAll("thead th") ?? [])].map((t) => t.textContent);
    expect(heads).not.toContain("Trick failed");
    expect(heads).not.toContain("Rejected");
    expect(panel?.querySelector("[data-testid=activity-label-ana]")?.children).toHaveLength(heads.length);
    // The heatmap is a table of rows to assistive technology.
    expect(panel?.querySelectorAll(".heatmap > [role=row]")).toHaveLength(3);
  });

  it("labels a kappa below 0 with room for its minus sign", () => {
    // Regression: "-1.00" was anchored 22 px from the chart's edge and drawn cut, reading "1.00".
    const series = [
      { answers: 2, at_ms: 1, value: -1 },
      { answers: 6, at_ms: 2, value: 0.25 },
    ];
    const base = labelDashboard();
    const d: Dashboard = { ...base, kinds: base.kinds.map((k) => ({ ...k, series })) };
    const [panel] = renderDashboard(d);
    const labels = [...(panel?.querySelectorAll(".spark-label") ?? [])];
    // With a true minus, as every negative kappa on screen (the walk of issue 36 found "-").
    expect(labels.map((t) => t.textContent)).toEqual(["\u22121.00", "0", "1", "2", "6 answers"]);
    // At 11 px a digit is about 6 px wide: five characters need about 31 px left of the anchor.
    expect(Number(labels[0]?.getAttribute("x"))).toBeGreaterThanOrEqual(31);
  });

  it("keeps every heat colour readable with the ink printed on it", () => {
    for (const v of [0, 0.3, 0.6, 0.61, 0.8, 1]) expect(heatColour(v).light).toBe(v > 0.6);
  });

  it("shows alpha with MASI distance for evidence and each annotator's rejected answers", () => {
    const d: Dashboard = {
      last_annotation_id: 4,
      intervals_as_of: 4,
      studies: [],
      questions: [],
      kinds: [
        {
          kind: "evidence",
          units: 2,
          paired: 2,
          annotators: 2,
          answers: 4,
          fleiss: { ...stat(0.4, null), metric: "setsel_pooled_fleiss_kappa" },
          alpha: { ...stat(0.41, null), metric: "setsel_pooled_krippendorff_alpha_nominal" },
          masi: { ...stat(0.372, [0.1, 0.6]), metric: "setsel_masi_krippendorff_alpha" },
          pairs_metric: "setsel_pooled_cohen_kappa",
          pairs_unit: "candidate sentence",
          pairs: [],
          people: [
            { name: "caro", counted: true, flagged: false, answers: 3, rejected: 1, active_ms: 0, pace_per_hour: null, tricks_seen: 3, trick_failure_rate: 1 / 3, trick_failure_ci95: null, majority_units: 0, majority_agreement: null },
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

  it("reads the study form, and says what is wrong with it", () => {
    expect(studyRequest("evidence", " 100 ", "ana, ben,, caro ", "")).toEqual({
      kind: "evidence",
      sample: 100,
      members: ["ana", "ben", "caro"],
      seed: null,
    });
    expect(studyRequest("label", "5", "ana", "42")).toEqual({ kind: "label", sample: 5, members: ["ana"], seed: "42" });
    // A seed past 2^53 goes as typed (as a number it would be rounded), one past 2^64 is refused.
    expect(studyRequest("label", "5", "ana", "9746023921380647916")).toMatchObject({ seed: "9746023921380647916" });
    expect(studyRequest("label", "5", "ana", "18446744073709551616")).toContain("seed");
    expect(studyRequest("refute", "5", "ana", "")).toContain("Choose");
    expect(studyRequest("label", "0", "ana", "")).toContain("at least 1");
    expect(studyRequest("label", "2.5", "ana", "")).toContain("whole number");
    expect(studyRequest("label", "5", " , ", "")).toContain("Name the second group");
    expect(studyRequest("label", "5", "ana", "-1")).toContain("seed");
  });

  it("shows each study's group-majority kappa and Fleiss per group, or why undefined", () => {
    expect(renderStudies([])[0]?.textContent).toContain("No studies yet");
    const [card] = renderStudies([
      {
        study: { id: 3, kind: "evidence", sample_size: 100, seed: "7", created_at: 0, lead: "maria", members: ["b1", "b2"], items: [1, 2], strata: null, by_stratum: [] },
        group_a: ["a1", "a2"],
        items_answered: 100,
        majority_units: 480,
        majority_kappa: { ...stat(0.52, [0.44, 0.6]), metric: "group_majority_cohen_kappa" },
        fleiss_a: stat(0.61, null),
        fleiss_b: stat(null, null, "no counted answers from this group yet"),
      },
    ]);
    const q = (id: string): string => card?.querySelector(`[data-testid="${id}"]`)?.textContent ?? "";
    expect(q("study-3-kappa")).toBe("0.520");
    expect(q("study-3-kappa-ci")).toBe("95% CI 0.440 – 0.600");
    expect(q("study-3-fleiss-a")).toBe("0.610");
    expect(q("study-3-fleiss-b-ci")).toBe("no counted answers from this group yet");
    expect(q("study-3-groups")).toContain("group A: a1, a2 · group B: b1, b2");
    // A stratified study says how it was drawn.
    const study = { id: 4, kind: "evidence" as const, sample_size: 4, seed: "7", created_at: 0, lead: "maria", members: ["b1"], items: [1, 2, 3, 4], strata: "jaccard-bins:2", by_stratum: [{ name: "0.00–0.50", items: [1, 2] }, { name: "0.50–1.00", items: [3, 4] }] };
    expect(drawnBy(study)).toBe(" · 2 from each of 2 groups by jaccard-bins:2");
    expect(drawnBy({ ...study, strata: null, by_stratum: [] })).toBe("");
  });

  it("keeps a study just drawn when an older snapshot arrives", () => {
    const study = (id: number, kappa: number | null) => ({
      study: { id, kind: "label" as const, sample_size: 2, seed: "1", created_at: 0, lead: "maria", members: ["b1"], items: [1], strata: null, by_stratum: [] },
      group_a: [],
      items_answered: 0,
      majority_units: 0,
      majority_kappa: stat(kappa, null),
      fleiss_a: stat(null, null, "none"),
      fleiss_b: stat(null, null, "none"),
    });
    const merged = mergeStudies([study(1, null), study(2, null)], [study(1, 0.4)]);
    expect(merged.map((s) => [s.study.id, s.majority_kappa.value])).toEqual([
      [1, 0.4],
      [2, null],
    ]);
  });

  it("says when there is nothing to compare yet", () => {
    const [empty] = renderDashboard({ last_annotation_id: 0, intervals_as_of: null, kinds: [], studies: [], questions: [] });
    expect(empty?.textContent).toContain("No answers yet");
  });
});
