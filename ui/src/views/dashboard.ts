// The lead's live agreement dashboard: per kind of task, Fleiss' kappa and
// Krippendorff's alpha (and for evidence, alpha with MASI distance over the selected sets)
// with their intervals and Landis–Koch reading, kappa over time, the pairwise Cohen matrix
// as a heatmap and each annotator's work, counted and rejected; re-annotation studies
// with a small form to draw one. The backend sends a new snapshot within a second of any
// answer; this screen only draws what arrives.

import { meaningOf } from "../keymap";
import { h, mount } from "../dom";
import { count, fixed, percent, plural, timeText } from "../format";
import {
  api,
  onDashboard,
  type AnnotatorActivity,
  type Dashboard,
  type KappaPoint,
  type KindDashboard,
  type PairAgreement,
  type Statistic,
  type StudyAgreement,
  type StudyRequest,
  type TaskKind,
} from "../ipc";
import type { Screen } from "./screen";
import { questionsPanel } from "./dashboard-questions";
import { KIND_TITLES } from "./work/chrome";

export interface DashboardDeps {
  home: () => void;
  fail: (e: unknown) => void;
}

const SVG = "http://www.w3.org/2000/svg";

/** A statistic as shown: three decimals (a true minus below 0), or "—" when undefined. */
export function statText(value: number | null): string {
  return value === null ? "—" : fixed(value, 3);
}

/**
 * What a pair's cell says under its κ: how many units both rated, since no interval is
 * computed for a pair: the lead weighs a κ by its n.
 */
export function pairWeight(units: number): string {
  return `n ${count(units)}`;
}

/** The heatmap's caption: what n counts, and that pairs have no interval. */
export function pairsCaption(unit: string): string {
  return `n: ${unit}s both rated. Pairs have no interval: weigh each κ by its n.`;
}

/** "95% CI 0.512 – 0.688", or why there is none (yet: `pending` while it is computed). */
export function intervalText(s: Statistic, pending = false): string {
  if (s.value === null) return s.reason ?? "undefined";
  if (!s.ci95) return pending ? "95% interval being computed…" : "no 95% interval: too few items to resample";
  return `95% CI ${fixed(s.ci95[0], 3)} – ${fixed(s.ci95[1], 3)}`;
}

/**
 * The heatmap colour of a kappa: white at 0 deepening to blue at 1, light red below 0;
 * returns the background and whether the printed value needs light text.
 */
export function heatColour(value: number | null): { background: string; light: boolean } {
  if (value === null) return { background: "#eef1f5", light: false };
  const v = Math.max(-1, Math.min(1, value));
  if (v < 0) {
    const t = -v;
    return { background: `hsl(4 ${Math.round(70 * t + 20)}% ${Math.round(96 - 24 * t)}%)`, light: false };
  }
  // Dark ink up to 0.6, white above: the blue steps down there so both inks keep 4.5:1
  // (WCAG AA) against their cells.
  const lightness = v <= 0.6 ? 97 - 55 * v : 46 - (12 * (v - 0.6)) / 0.4;
  return { background: `hsl(222 ${Math.round(30 + 45 * v)}% ${Math.round(lightness)}%)`, light: v > 0.6 };
}

/**
 * Answers per hour, rounded, under a "Per hour" heading as in the report; "—" before any
 * measured time.
 */
export function paceText(perHour: number | null): string {
  return perHour === null ? "—" : count(Math.round(perHour));
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** SVG text: a text node, like everything else on screen. */
function svgText(x: number, y: number, anchor: string, text: string): SVGTextElement {
  const t = svg("text", { x, y, "text-anchor": anchor, class: "spark-label" });
  t.textContent = text;
  return t;
}

/**
 * Kappa over the answers as a small chart: κ on the left axis (0, 1, and the lowest value
 * when it went below 0), counted answers along the bottom from the first point to the last.
 */
function sparkline(points: KappaPoint[], kind: string): Element {
  // About the size it is drawn at, so the axis labels read at their font size.
  const width = 240;
  const height = 88;
  const bottom = 16;
  const plot = height - bottom;
  const defined = points.filter((p): p is KappaPoint & { value: number } => p.value !== null);
  const lo = Math.min(0, ...defined.map((p) => p.value));
  // Room for the widest label: a value below 0 ("-1.00") needs more than "0" and "1",
  // and a label cut at the edge would lose its minus sign and read as positive.
  const left = lo < 0 ? 42 : 28;
  const box = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "sparkline",
    role: "img",
    "aria-label": "Fleiss' kappa as answers accumulated",
    "data-testid": `series-${kind}`,
  });
  const y = (v: number): number => 6 + (plot - 12) * (1 - (v - lo) / (1 - lo));
  const marks = lo < 0 ? [lo, 0, 1] : [0, 1];
  for (const mark of marks) {
    box.append(svg("line", { x1: left, x2: width, y1: y(mark), y2: y(mark), class: "spark-axis" }));
    box.append(svgText(left - 6, y(mark) + 4, "end", mark === 0 || mark === 1 ? String(mark) : fixed(mark, 2)));
  }
  const first = defined[0];
  const last = defined[defined.length - 1];
  if (first && last) {
    const span = Math.max(1, last.answers - first.answers);
    const x = (n: number): number => left + 4 + (width - left - 8) * ((n - first.answers) / span);
    const path = defined.map((p) => `${x(p.answers).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
    box.append(svg("polyline", { points: path, class: "spark-line" }));
    box.append(svg("circle", { cx: x(last.answers), cy: y(last.value), r: 3, class: "spark-dot" }));
    const labels = svg("g", { "data-testid": `series-${kind}-x` });
    labels.append(svgText(left + 4, height - 3, "start", count(first.answers)));
    if (last.answers !== first.answers) labels.append(svgText(width - 4, height - 3, "end", `${count(last.answers)} answers`));
    box.append(labels);
  }
  return box;
}

function statCard(title: string, s: Statistic, testid: string, note: string, pending: boolean): HTMLElement {
  return h(
    "div",
    { class: "stat" },
    h("div", { class: "stat-title" }, title),
    h(
      "div",
      { class: "stat-main" },
      h("span", { class: "stat-value", testid, title: s.metric }, statText(s.value)),
      s.reading ? h("span", { class: `badge reading reading-${s.reading.replace(" ", "-")}`, testid: `${testid}-reading` }, s.reading) : null,
    ),
    h("div", { class: "muted small", testid: `${testid}-ci` }, intervalText(s, pending)),
    h("div", { class: "faint small" }, note),
  );
}

/** The pairwise Cohen matrix: a square grid with a row and a column per annotator. */
function heatmap(k: KindDashboard): HTMLElement {
  const names = [...new Set(k.pairs.flatMap((p) => [p.a, p.b]))].sort();
  if (names.length < 2) return h("p", { class: "muted small" }, "Cohen's kappa needs two annotators on the same items.");
  const find = (a: string, b: string): PairAgreement | undefined =>
    k.pairs.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
  const grid = h("div", { class: "heatmap", role: "table", "aria-label": "Cohen's kappa for each pair", testid: `heatmap-${k.kind}` });
  grid.style.setProperty("grid-template-columns", `max-content repeat(${names.length}, minmax(56px, 72px))`);
  // Rows are real table rows to assistive technology and invisible to the grid's layout.
  const row = (...cells: HTMLElement[]): HTMLElement => h("div", { class: "heat-line", role: "row" }, ...cells);
  grid.append(
    row(
      h("span", { class: "heat-corner", role: "columnheader" }),
      ...names.map((n) => h("span", { class: "heat-head", role: "columnheader", title: n }, n)),
    ),
  );
  for (const a of names) {
    const line = row(h("span", { class: "heat-row", role: "rowheader" }, a));
    grid.append(line);
    for (const b of names) {
      if (a === b) {
        line.append(h("span", { class: "heat-cell heat-self", role: "cell", "aria-label": `${a} with self` }, ""));
        continue;
      }
      const pair = find(a, b);
      const value = pair?.value ?? null;
      const colour = heatColour(value);
      const tip = pair
        ? `${a} and ${b}: ${value === null ? (pair.reason ?? "undefined") : `κ ${fixed(value, 3)}`} over ${count(pair.units)} shared ${k.pairs_unit}s, no interval`
        : "";
      const cell = h(
        "span",
        { class: colour.light ? "heat-cell light" : "heat-cell", role: "cell", title: tip },
        h("span", { class: "heat-value", testid: `pair-${k.kind}-${a}-${b}` }, statText(value)),
        pair ? h("span", { class: "heat-n", testid: `pair-n-${k.kind}-${a}-${b}` }, pairWeight(pair.units)) : null,
      );
      cell.style.setProperty("background", colour.background);
      line.append(cell);
    }
  }
  return h(
    "div",
    {},
    grid,
    h(
      "div",
      { class: "heat-legend" },
      ...[-0.2, 0, 0.2, 0.4, 0.6, 0.8, 1].map((v) => {
        const colour = heatColour(v);
        const swatch = h("span", { class: colour.light ? "heat-swatch light" : "heat-swatch" }, fixed(v, 1));
        swatch.style.setProperty("background", colour.background);
        return swatch;
      }),
    ),
  );
}

/** Only evidence items carry a trick sentence: the other kinds have no trick columns. */
function hasTrick(kind: string): boolean {
  return kind === "evidence";
}

/** The annotator table's columns for a kind. */
export function activityColumns(kind: string): string[] {
  return hasTrick(kind)
    ? ["Name", "Answers", "Rejected", "Per hour", "Trick failed", "With the majority", "Status"]
    : ["Name", "Answers", "Per hour", "With the majority", "Status"];
}

/** What "with the majority" counts: evidence is compared per candidate sentence. */
export function majorityUnit(kind: string): string {
  return kind === "evidence" ? "sentence" : "item";
}

function personRow(kind: string, a: AnnotatorActivity): HTMLElement {
  const status = a.flagged
    ? h("span", { class: "badge badge-danger" }, "FLAGGED")
    : a.counted
      ? h("span", { class: "muted" }, "counted")
      : h("span", { class: "muted" }, "left out");
  const majority =
    a.majority_agreement === null ? "—" : `${percent(a.majority_agreement)} of ${plural(a.majority_units, majorityUnit(kind))}`;
  return h(
    "tr",
    { testid: `activity-${kind}-${a.name}`, class: a.counted ? undefined : "flagged" },
    h("th", {}, a.name),
    h("td", { class: "num" }, count(a.answers)),
    hasTrick(kind)
      ? h("td", { class: "num", testid: `rejected-${kind}-${a.name}`, title: "answers that picked the trick: shown, counted for nothing" }, count(a.rejected))
      : null,
    h("td", { class: "num", testid: `pace-${kind}-${a.name}` }, paceText(a.pace_per_hour)),
    hasTrick(kind) ? h("td", { class: "num" }, a.tricks_seen > 0 ? `${percent(a.trick_failure_rate)} of ${plural(a.tricks_seen, "trick")}${a.trick_failure_ci95 ? ` (95% CI ${percent(a.trick_failure_ci95[0])}–${percent(a.trick_failure_ci95[1])})` : ""}` : "—") : null,
    h("td", { class: "num", testid: `majority-${kind}-${a.name}` }, majority),
    h("td", {}, status),
  );
}

/** "45 items · 12 with two or more answers · 2 annotators · 57 answers" ("1 annotator"). */
export function countsText(k: KindDashboard): string {
  return `${plural(k.units, "item")} · ${count(k.paired)} with two or more answers · ${plural(k.annotators, "annotator")} · ${plural(k.answers, "answer")}`;
}

/** Why κ is undefined, with how many items agreement could be measured on. */
export function whyNoAgreement(k: KindDashboard): string {
  const measured =
    k.paired === 0
      ? "No item has two counted answers yet, and agreement is measured only on items with two or more."
      : `Only ${count(k.paired)} ${k.paired === 1 ? "item has" : "items have"} two or more counted answers.`;
  return k.fleiss.reason ? `${measured} (${k.fleiss.reason})` : measured;
}

function kindPanel(k: KindDashboard, pending: boolean): HTMLElement {
  const perCandidate = k.kind === "evidence";
  const note = perCandidate ? "per candidate sentence: selected or not" : "nominal categories";
  return h(
    "section",
    { class: "panel dash-kind", testid: `dash-${k.kind}` },
    h(
      "div",
      { class: "dash-kind-head" },
      h("h3", {}, KIND_TITLES[k.kind]),
      h(
        "span",
        { class: "muted small", testid: `dash-counts-${k.kind}` },
        countsText(k),
      ),
    ),
    k.fleiss.value === null ? h("p", { class: "muted small dash-why", testid: `dash-why-${k.kind}` }, whyNoAgreement(k)) : null,
    h(
      "div",
      { class: "dash-stats" },
      statCard("Fleiss' κ", k.fleiss, `fleiss-${k.kind}`, note, pending),
      statCard("Krippendorff's α", k.alpha, `alpha-${k.kind}`, "nominal, missing answers allowed", pending),
      k.masi ? statCard("α, MASI distance", k.masi, `masi-${k.kind}`, "over the selected sets; no evidence is the empty set", pending) : null,
      h(
        "div",
        { class: "stat stat-spark" },
        h("div", { class: "stat-title" }, "κ as answers came in"),
        sparkline(k.series, k.kind),
        h("div", { class: "faint small" }, `over ${count(k.series[k.series.length - 1]?.answers ?? 0)} counted answers`),
      ),
    ),
    h(
      "div",
      { class: "dash-detail" },
      h(
        "div",
        {},
        h("h4", { title: k.pairs_metric }, `Cohen's κ for each pair, per ${k.pairs_unit}`),
        h("p", { class: "faint small heat-caption", testid: `pairs-caption-${k.kind}` }, pairsCaption(k.pairs_unit)),
        heatmap(k),
      ),
      h(
        "div",
        {},
        h("h4", {}, "Annotators"),
        h(
          "table",
          { class: "table" },
          h(
            "thead",
            {},
            h("tr", {}, ...activityColumns(k.kind).map((t) => h("th", {}, t))),
          ),
          h("tbody", {}, ...k.people.map((a) => personRow(k.kind, a))),
        ),
      ),
    ),
  );
}

const STUDY_KINDS: TaskKind[] = ["evidence", "verify", "label"];

/** The study form's fields as a request, or what is wrong with them. */
export function studyRequest(kind: string, sample: string, members: string, seed: string): StudyRequest | string {
  const k = STUDY_KINDS.find((x) => x === kind);
  if (!k) return "Choose evidence, verification or labelling.";
  const n = Number(sample.trim());
  if (!Number.isInteger(n) || n < 1) return "The sample is a whole number of items, at least 1.";
  const names = members
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  if (names.length === 0) return "Name the second group's annotators, separated by commas.";
  // Sent as text: a seed past 2^53 would be rounded as a number.
  const s = seed.trim();
  if (s !== "" && !(/^\d{1,20}$/.test(s) && BigInt(s) < 2n ** 64n)) return "The seed is a whole number from 0 to 18446744073709551615 (or empty for the project's).";
  return { kind: k, sample: n, members: names, seed: s === "" ? null : s };
}

/** How a study's items were drawn, when not uniformly: " · 13 from each of 10 groups by jaccard-bins:10". */
export function drawnBy(s: StudyAgreement["study"]): string {
  if (s.strata === null || s.by_stratum.length === 0) return "";
  const sizes = new Set(s.by_stratum.map((g) => g.items.length));
  const each = sizes.size === 1 ? `${count(s.by_stratum[0]?.items.length ?? 0)} from each of` : "drawn from";
  return ` · ${each} ${plural(s.by_stratum.length, "group")} by ${s.strata}`;
}

function studyCard(st: StudyAgreement): HTMLElement {
  const s = st.study;
  const groupA = st.group_a.length > 0 ? st.group_a.join(", ") : "nobody yet";
  return h(
    "div",
    { class: "study", testid: `study-${s.id}` },
    h(
      "div",
      { class: "dash-kind-head" },
      h("h4", {}, `Study ${s.id}: ${KIND_TITLES[s.kind]}, ${count(s.sample_size)} items`),
      h(
        "span",
        { class: "muted small", testid: `study-${s.id}-groups` },
        `group A: ${groupA} · group B: ${s.members.join(", ")} · ${count(st.items_answered)} answered by both · seed ${s.seed}${drawnBy(s)}`,
      ),
    ),
    h(
      "div",
      { class: "dash-stats" },
      statCard(`κ between group majorities (${count(st.majority_units)} units)`, st.majority_kappa, `study-${s.id}-kappa`, "Cohen's κ, bootstrap interval over items", false),
      statCard("Fleiss' κ, group A", st.fleiss_a, `study-${s.id}-fleiss-a`, "on the sampled items", false),
      statCard("Fleiss' κ, group B", st.fleiss_b, `study-${s.id}-fleiss-b`, "on the sampled items", false),
    ),
  );
}

/**
 * Studies by id, newer figures replacing older ones: snapshots carry the studies known
 * when their intervals were computed, which may predate one just drawn.
 */
export function mergeStudies(known: StudyAgreement[], incoming: StudyAgreement[]): StudyAgreement[] {
  const byId = new Map(known.map((st) => [st.study.id, st]));
  for (const st of incoming) byId.set(st.study.id, st);
  return [...byId.values()].sort((a, b) => a.study.id - b.study.id);
}

/** The studies with their figures; exported for the UI tests. */
export function renderStudies(studies: StudyAgreement[]): HTMLElement[] {
  if (studies.length === 0) return [h("p", { class: "muted small", testid: "studies-empty" }, "No studies yet.")];
  return studies.map(studyCard);
}

/** The panel of re-annotation studies: the list, and a form that draws a new one. */
function studiesPanel(deps: DashboardDeps): { el: HTMLElement; show: (studies: StudyAgreement[]) => void } {
  const list = h("div", { class: "study-list", testid: "studies" });
  let known: StudyAgreement[] = [];
  const show = (studies: StudyAgreement[]): void => {
    known = mergeStudies(known, studies);
    mount(list, ...renderStudies(known));
  };
  show([]);
  const kind = h("select", { class: "text-input", testid: "study-kind", "aria-label": "Kind" });
  for (const k of STUDY_KINDS) {
    const o = h("option", {}, KIND_TITLES[k]);
    o.value = k;
    kind.append(o);
  }
  const sample = h("input", { class: "text-input study-n", testid: "study-sample", type: "text", "aria-label": "Sample size" });
  sample.value = "100";
  const members = h("input", { class: "text-input", testid: "study-members", type: "text", placeholder: "ana, ben, caro", "aria-label": "Second group", dir: "auto" });
  const seed = h("input", { class: "text-input study-n", testid: "study-seed", type: "text", placeholder: "project's", "aria-label": "Seed" });
  const problem = h("span", { class: "small study-problem", testid: "study-problem" });
  const draw = (): void => {
    const request = studyRequest(kind.value, sample.value, members.value, seed.value);
    if (typeof request === "string") {
      mount(problem, request);
      return;
    }
    mount(problem);
    api
      .createStudy(request)
      .then(show)
      .catch(deps.fail);
  };
  const el = h(
    "section",
    { class: "panel", testid: "dash-studies" },
    h("h3", {}, "Re-annotation studies"),
    h(
      "p",
      { class: "muted small" },
      "A seeded sample answered again by a second group: Cohen's κ between the two groups' majority votes, Fleiss' κ within each. The group's members are served the sample first.",
    ),
    list,
    h(
      "div",
      { class: "study-form" },
      h("label", {}, "Kind ", kind),
      h("label", {}, "Items ", sample),
      h("label", {}, "Second group ", members),
      h("label", {}, "Seed ", seed),
      h("button", { testid: "study-draw", onclick: draw }, "Draw study"),
      problem,
    ),
  );
  return { el, show };
}

/** Draws one snapshot; exported for the UI tests. */
export function renderDashboard(d: Dashboard): HTMLElement[] {
  const questions = questionsPanel(d.questions);
  if (d.kinds.length === 0 && questions === null) {
    return [
      h(
        "div",
        { class: "panel dash-empty", testid: "dash-empty" },
        h("h3", {}, "No answers yet"),
        h("p", { class: "muted" }, "Agreement shows here as soon as two people answer the same item."),
      ),
    ];
  }
  const pending = d.intervals_as_of !== d.last_annotation_id;
  const panels = d.kinds.map((k) => kindPanel(k, pending));
  return questions ? [...panels, questions] : panels;
}

export function dashboardScreen(deps: DashboardDeps): Screen {
  const body = h("div", { class: "dash-body", testid: "dash-body" }, h("p", { class: "muted" }, "Reading the answers…"));
  const updated = h("span", { class: "muted small", testid: "dash-updated" });
  // On a team server: said while the link is down and followed again, empty otherwise.
  const link = h("span", { class: "small dash-link", testid: "dash-link", role: "status" });
  link.dataset["live"] = "true";
  const studies = studiesPanel(deps);
  let stop: (() => void) | null = null;
  let left = false;
  return {
    el: h(
      "main",
      { class: "dashboard", testid: "dashboard" },
      h(
        "div",
        { class: "dash-head" },
        h("div", {}, h("h1", {}, "Agreement"), h("p", { class: "muted" }, "Live: updates within a second of any answer. Flagged annotators are left out.")),
        h("span", { class: "spacer" }),
        link,
        h("span", { class: "live-dot", "aria-hidden": "true" }),
        updated,
        h("button", { testid: "dash-home", onclick: () => deps.home() }, "Home ", h("kbd", {}, "Esc")),
      ),
      body,
      studies.el,
    ),
    onKey(ev: KeyboardEvent): boolean {
      if (meaningOf(ev.key) !== "escape") return false;
      deps.home();
      return true;
    },
    shown(): void {
      onDashboard(
        (d) => {
          mount(body, ...renderDashboard(d));
          if (d.intervals_as_of !== null) studies.show(d.studies);
          updated.dataset["lastAnnotation"] = String(d.last_annotation_id);
          updated.dataset["intervalsAsOf"] = String(d.intervals_as_of ?? "");
          mount(updated, `Updated ${timeText(Date.now(), true)}`);
        },
        deps.fail,
        (down) => {
          link.dataset["live"] = down ? "false" : "true";
          link.title = down?.message ?? "";
          mount(link, down ? "Reconnecting…" : "");
        },
      )
        .then((unlisten) => {
          if (left) return unlisten();
          stop = unlisten;
          return api.watchDashboard();
        })
        .catch(deps.fail);
    },
    leave(): void {
      left = true;
      stop?.();
      api.stopDashboard().catch(() => undefined);
    },
  };
}
