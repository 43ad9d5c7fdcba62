// The dashboard's panel for the project's own design: each question's agreement on its
// own unit (the item, the item and label, the word), with the bootstrap interval and the
// Landis–Koch reading, as `factdesk agreement --kind design` gives them.

import { h } from "../dom";
import { count, fixed, percent } from "../format";
import type { QuestionStatistics, Statistic } from "../ipc";

/** The column titles of a question's four statistics, by their agreement names. */
const TITLES: Record<string, string> = {
  fleiss_kappa: "Fleiss' κ",
  setsel_pooled_fleiss_kappa: "Fleiss' κ",
  krippendorff_alpha_nominal: "Krippendorff's α",
  setsel_masi_krippendorff_alpha: "α, MASI",
  cohen_kappa_mean_pairwise: "mean pairwise Cohen's κ",
  setsel_pooled_cohen_kappa_mean_pairwise: "mean pairwise Cohen's κ",
  percent_agreement: "agreement",
  setsel_pooled_percent_agreement: "agreement",
};

/** A statistic in a cell: its value and reading, its interval under them, or why it is undefined. */
export function questionCell(s: Statistic): { text: string; interval: string; title: string } {
  const name = TITLES[s.metric] ?? s.metric;
  if (s.value === null) return { text: "—", interval: "", title: s.reason ?? "undefined" };
  // Agreement is a share of agreeing pairs, shown as every screen shows shares.
  if (s.metric.endsWith("percent_agreement")) return { text: percent(s.value), interval: "", title: name };
  const interval = s.ci95 ? `95% CI ${fixed(s.ci95[0], 3)} – ${fixed(s.ci95[1], 3)}` : "";
  const reading = s.reading ? ` ${s.reading}` : "";
  return { text: `${fixed(s.value, 3)}${reading}`, interval, title: name };
}

function colspan(cell: HTMLTableCellElement, n: number): HTMLTableCellElement {
  cell.colSpan = n;
  return cell;
}

/** What a question's unit is, in words. */
export function unitText(q: QuestionStatistics): string {
  const units = count(q.units);
  if (q.unit === "token") return `${units} words`;
  if (q.unit === "item and label") return `${units} items × labels`;
  return `${units} items`;
}

/** The panel, or nothing when the project declares no design (or none is computed yet). */
export function questionsPanel(questions: QuestionStatistics[]): HTMLElement | null {
  if (questions.length === 0) return null;
  const head = ["Question", "Measured on", "Fleiss' κ", "Krippendorff's α", "Mean pairwise Cohen's κ", "Agreement"];
  return h(
    "section",
    { class: "panel dash-kind", testid: "dash-design" },
    h(
      "div",
      { class: "dash-kind-head" },
      h("h3", {}, "Your questions"),
      h("span", { class: "muted small" }, "each on its own unit, with its 95% interval"),
    ),
    h(
      "table",
      { class: "table" },
      h("thead", {}, h("tr", {}, ...head.map((t) => h("th", {}, t)))),
      h(
        "tbody",
        {},
        ...questions.map((q) =>
          h(
            "tr",
            { testid: `dash-question-${q.question}` },
            h("td", {}, h("code", {}, q.question)),
            h("td", { class: "muted" }, `${unitText(q)}, ${count(q.annotators)} annotators`),
            ...(q.statistics.length === 0
              ? [colspan(h("td", { class: "muted" }, "free text: no agreement statistic"), 4)]
              : q.statistics.map((s) => {
                  const cell = questionCell(s);
                  return h(
                    "td",
                    { class: "num", title: cell.title },
                    cell.text,
                    cell.interval ? h("div", { class: "muted small" }, cell.interval) : null,
                  );
                })),
          ),
        ),
      ),
    ),
  );
}
