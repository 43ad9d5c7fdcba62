// The gold export: format, splits, seed, method and whether flagged annotators count; a
// live preview of what would be written (counts per label and split, dropped claims and
// why) before anything is; then the file and its dataset card, and where they went.

import { capOf, meaningOf } from "../keymap";
import { h, mount } from "../dom";
import { pathField } from "../path-field";
import { plainError } from "../errors";
import { CHOOSE_HERE, claimNumber, count, isServerAddress, percent } from "../format";
import { oneAtATime } from "../once";
import { api, pickGoldFile, type ExportFormat, type ExportPreview, type GoldMethod, type GoldRequest, type Overview } from "../ipc";
import { answersPanel } from "./answers-export";
import type { Screen } from "./screen";

export interface ExportDeps {
  home: () => void;
  adjudicate: () => void;
  fail: (e: unknown) => void;
}

/** `<project>.gold.jsonl` beside the project file; none for a server (no folder of it is here). */
export function defaultOutPath(projectPath: string): string {
  if (isServerAddress(projectPath)) return "";
  return `${projectPath.replace(/\.fdesk$/i, "")}.gold.jsonl`;
}

/** "70,15,15" as ratios, or what is wrong with it. */
export function parseSplits(text: string): number[] | string {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) return "Splits: whole numbers separated by commas, like 70,15,15.";
  const ratios = parts.map(Number);
  if (ratios.every((r) => r === 0)) return "Splits: at least one must be above zero.";
  return ratios;
}

/** The seed as a whole number, or null when it is not one. */
export function parseSeed(text: string): number | null {
  return /^\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : null;
}

/** Rows of a count table, largest first, each with its share of the total. */
export function countRows(counts: Record<string, number | undefined>): { name: string; n: number; share: number }[] {
  const entries = Object.entries(counts).map(([name, n]) => ({ name, n: n ?? 0 }));
  const total = entries.reduce((sum, e) => sum + e.n, 0);
  return entries.sort((a, b) => b.n - a.n || a.name.localeCompare(b.name)).map((e) => ({ ...e, share: total ? e.n / total : 0 }));
}

/** Dropped claims grouped by reason, commonest first. */
export function dropReasons(preview: ExportPreview): { reason: string; n: number }[] {
  const by = new Map<string, number>();
  for (const d of preview.dropped) by.set(d.reason, (by.get(d.reason) ?? 0) + 1);
  return [...by.entries()].map(([reason, n]) => ({ reason, n })).sort((a, b) => b.n - a.n || a.reason.localeCompare(b.reason));
}

/** The export form as the lead left it, per project; kept in the webview's storage. */
export interface ExportSettings {
  format: string;
  method: string;
  splits: string;
  seed: string;
  flagged: boolean;
  out: string;
}

const settingsKey = (projectPath: string): string => `factdesk.export:${projectPath}`;

/** The settings last used on this project, or null (none yet, or storage unavailable). */
export function loadSettings(projectPath: string, storage: Storage | null = safeStorage()): ExportSettings | null {
  try {
    const raw = storage?.getItem(settingsKey(projectPath));
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<ExportSettings>;
    if (typeof v.splits !== "string" || typeof v.seed !== "string" || typeof v.out !== "string") return null;
    return {
      format: String(v.format ?? ""),
      method: String(v.method ?? ""),
      splits: v.splits,
      seed: v.seed,
      flagged: v.flagged === true,
      out: v.out,
    };
  } catch {
    // Unreadable settings are as good as none: the form starts from its defaults.
    return null;
  }
}

export function saveSettings(projectPath: string, settings: ExportSettings, storage: Storage | null = safeStorage()): void {
  try {
    storage?.setItem(settingsKey(projectPath), JSON.stringify(settings));
  } catch {
    // A full or disabled storage only means the form is not remembered next time.
  }
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function select<T extends string>(testid: string, label: string, options: [T, string][]): HTMLSelectElement {
  const el = h("select", { class: "text-input", testid, "aria-label": label });
  for (const [value, text] of options) {
    const o = h("option", {}, text);
    o.value = value;
    el.append(o);
  }
  return el;
}

function countTable(title: string, testid: string, counts: Record<string, number | undefined>): HTMLElement {
  if (countRows(counts).length === 0) {
    return h("div", { class: "export-counts" }, h("h3", {}, title), h("p", { class: "muted small", testid }, "No lines yet."));
  }
  return h(
    "div",
    { class: "export-counts" },
    h("h3", {}, title),
    h(
      "table",
      { class: "table", testid },
      h(
        "tbody",
        {},
        ...countRows(counts).map((r) => {
          const bar = h("span", { class: "share-bar" });
          bar.style.width = `${Math.round(r.share * 100)}%`;
          return h(
            "tr",
            { testid: `${testid}-${r.name}` },
            h("th", {}, r.name),
            h("td", { class: "num" }, count(r.n)),
            h("td", { class: "share-cell" }, bar),
            h("td", { class: "num muted" }, percent(r.share)),
          );
        }),
      ),
    ),
  );
}

/** The preview as shown; exported for the UI tests. */
export function renderPreview(p: ExportPreview): HTMLElement[] {
  const reasons = dropReasons(p);
  const shown = p.dropped.slice(0, 40);
  return [
    h(
      "div",
      { class: "export-summary" },
      h("span", { class: "export-lines", testid: "export-lines" }, count(p.lines)),
      h("span", {}, " claims would be written"),
      h("span", { class: "muted" }, ` · ${count(p.dropped.length)} dropped`),
      p.mean_share_agreeing !== null ? h("span", { class: "muted" }, ` · mean agreement ${percent(p.mean_share_agreeing)}`) : null,
    ),
    h(
      "p",
      { class: "muted small", testid: "export-annotators" },
      `Counted: ${p.counted_annotators.join(", ") || "nobody"}`,
      p.excluded_annotators.length ? ` · left out (flagged): ${p.excluded_annotators.join(", ")}` : "",
      p.under_annotated.length ? ` · held back (fewer counted answers than the overlap): ${count(p.under_annotated.length)}` : "",
    ),
    h("div", { class: "export-tables" }, countTable("Per label", "export-label", p.per_label), countTable("Per split", "export-split", p.per_split)),
    h(
      "div",
      { class: "export-notes" },
      p.rejected_answers
        ? h("p", { class: "muted small", testid: "export-rejected" }, `${count(p.rejected_answers)} answers rejected: they picked the trick sentence and count for nothing.`)
        : null,
      p.split_warnings.length
        ? h("ul", { class: "export-warnings error-text", testid: "export-split-warnings" }, ...p.split_warnings.map((w) => h("li", {}, `Warning: ${w}`)))
        : null,
      h(
        "p",
        { class: "muted small", testid: "export-refutations" },
        "Written refutations: ",
        Object.entries(p.refutations)
          .map(([state, n]) => `${count(n)} ${state.replace(/_/g, " ")}`)
          .join(", ") || "none",
      ),
    ),
    h(
      "div",
      { class: "export-dropped", testid: "export-dropped" },
      h("h3", {}, "Dropped claims"),
      reasons.length === 0
        ? h("p", { class: "muted" }, "None: every claim with answers made it.")
        : h("ul", { class: "export-reasons" }, ...reasons.map((r) => h("li", {}, h("strong", {}, count(r.n)), ` — ${r.reason}`))),
      shown.length
        ? h(
            "details",
            {},
            h("summary", {}, `The ${shown.length === p.dropped.length ? "" : `first ${shown.length} of the `}dropped claims`),
            h(
              "ul",
              { class: "export-dropped-list" },
              ...shown.map((d) => h("li", {}, h("span", { class: "claim-number" }, claimNumber(d.number)), " ", h("code", {}, d.id), " ", h("bdi", {}, d.claim), h("span", { class: "muted" }, ` — ${d.reason}`))),
            ),
          )
        : null,
    ),
  ];
}

export function exportScreen(project: Overview, deps: ExportDeps): Screen {
  const format = select<ExportFormat>("export-format", "Format", [
    ["factdesk", "Factdesk (full provenance)"],
    ["fever", "FEVER (plus one file per split)"],
  ]);
  const method = select<GoldMethod>("export-method", "Method", [
    ["majority", "Strict majority"],
    ["dawid-skene", "Dawid-Skene"],
  ]);
  const splits = h("input", { class: "text-input", testid: "export-splits", type: "text", "aria-label": "Splits" });
  splits.value = "70,15,15";
  const seed = h("input", { class: "text-input", testid: "export-seed", type: "text", "aria-label": "Seed" });
  seed.value = "1";
  const flagged = h("input", { testid: "export-flagged", type: "checkbox", "aria-label": "Include flagged annotators" });
  const out = h("input", { class: "text-input export-out", testid: "export-out", type: "text", "aria-label": "Output file", dir: "auto", placeholder: CHOOSE_HERE });
  out.value = defaultOutPath(project.path);
  const outField = pathField(out);
  const force = h("input", { testid: "export-force", type: "checkbox", "aria-label": "Replace existing files" });
  const kept = loadSettings(project.path);
  if (kept) {
    // An option that no longer exists leaves the select on its first choice.
    if ([...format.options].some((o) => o.value === kept.format)) format.value = kept.format;
    if ([...method.options].some((o) => o.value === kept.method)) method.value = kept.method;
    splits.value = kept.splits;
    seed.value = kept.seed;
    flagged.checked = kept.flagged;
    out.value = kept.out || out.value;
    outField.refresh();
  }
  const remember = (): void =>
    saveSettings(project.path, {
      format: format.value,
      method: method.value,
      splits: splits.value,
      seed: seed.value,
      flagged: flagged.checked,
      out: out.value,
    });
  const preview = h("div", { class: "panel export-preview", testid: "export-preview" }, h("p", { class: "muted" }, "Counting…"));
  // Problems with the settings show under them; a failed write shows under "Write to".
  const problem = h("p", { class: "error-text", testid: "export-problem", role: "alert" });
  const outProblem = h("p", { class: "error-text field-error", testid: "export-out-problem", role: "alert" });
  const result = h("div", { class: "export-result", testid: "export-result" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;

  function request(): GoldRequest | string {
    const ratios = parseSplits(splits.value);
    if (typeof ratios === "string") return ratios;
    const s = parseSeed(seed.value);
    if (s === null) return "Seed: a whole number.";
    // Under-annotated claims are held back here; the CLI's --include-under-annotated
    // exports them marked.
    return { method: method.value as GoldMethod, include_flagged: flagged.checked, include_under_annotated: false, splits: ratios, seed: s };
  }

  async function refresh(): Promise<void> {
    const req = request();
    mount(problem, typeof req === "string" ? req : "");
    if (typeof req === "string") return;
    const mine = ++asked;
    preview.classList.add("stale");
    try {
      const p = await api.exportPreview(req);
      // Only the answer to the latest question is drawn.
      if (mine !== asked) return;
      mount(preview, ...renderPreview(p));
    } catch (e) {
      if (mine === asked) mount(preview, h("p", { class: "error-text" }, plainError("Could not count what would be exported", e)));
    } finally {
      if (mine === asked) preview.classList.remove("stale");
    }
  }

  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 200);
  };
  for (const input of [format, method, splits, seed, flagged]) input.addEventListener("input", later);
  for (const input of [format, method, splits, seed, flagged, out]) input.addEventListener("change", remember);
  out.addEventListener("input", () => mount(outProblem));

  // One export at a time: a double-click must not write the same file twice at once.
  const write = oneAtATime(async (): Promise<void> => {
    const req = request();
    if (typeof req === "string") return void mount(problem, req);
    if (!out.value.trim()) return void mount(outProblem, "Say where to write the gold data: a file path.");
    mount(outProblem);
    mount(result, h("p", { class: "muted" }, "Writing…"));
    try {
      const r = await api.exportGold(req, out.value.trim(), format.value as ExportFormat, force.checked);
      remember();
      mount(
        result,
        h(
          "div",
          { class: "export-done", testid: "export-done" },
          h("strong", {}, `Wrote ${count(r.preview.lines)} claims`),
          h("div", {}, "Gold file: ", h("code", { testid: "export-written" }, r.out)),
          h("div", {}, "Dataset card: ", h("code", { testid: "export-card" }, r.card)),
          ...r.split_files.map((f) => h("div", {}, "Split: ", h("code", {}, f))),
        ),
      );
    } catch (e) {
      mount(result, "");
      mount(outProblem, plainError(`Could not write ${out.value.trim()}`, e));
    }
  });

  const choose = async (): Promise<void> => {
    try {
      const picked = await pickGoldFile(out.value);
      if (picked) {
        out.value = picked;
        outField.refresh();
        out.scrollLeft = out.scrollWidth;
        mount(outProblem);
        remember();
      }
    } catch (e) {
      deps.fail(e);
    }
  };

  const field = (label: string, input: HTMLElement, note?: string): HTMLElement[] => [
    h("label", { class: "export-label" }, label),
    h("div", {}, input, note ? h("span", { class: "muted small export-note" }, note) : null),
  ];

  return {
    el: h(
      "main",
      { class: "export", testid: "export" },
      h(
        "div",
        { class: "dash-head" },
        h("div", {}, h("h1", {}, "Export gold data"), h("p", { class: "muted" }, "One claim per line with its label, evidence, split, agreement and provenance; a dataset card beside it.")),
        h("span", { class: "spacer" }),
        h("button", { testid: "export-adjudicate", onclick: () => deps.adjudicate() }, "Adjudication queue ", h("kbd", {}, capOf("queue"))),
        h("button", { testid: "export-home", onclick: () => deps.home() }, "Home ", h("kbd", {}, "Esc")),
      ),
      h(
        "div",
        { class: "export-grid" },
        h(
          "section",
          { class: "panel" },
          h("h3", {}, "Settings"),
          h(
            "div",
            { class: "export-form" },
            ...field("Format", format),
            ...field("Method", method),
            ...field("Splits", splits, "train, dev, test"),
            ...field("Seed", seed, "same seed, same splits"),
            ...field("Flagged", h("label", { class: "export-check" }, flagged, " count flagged annotators")),
          ),
          problem,
          h("h3", { class: "export-out-title" }, "Write to"),
          h(
            "div",
            { class: "inline-form" },
            outField.el,
            h("button", { testid: "export-choose", onclick: () => void choose() }, "Choose…"),
          ),
          h("label", { class: "export-check" }, force, " replace files already there"),
          outProblem,
          h("div", { class: "import-actions" }, h("button", { class: "primary", testid: "export-write", onclick: () => void write() }, "Export")),
          result,
        ),
        preview,
      ),
      answersPanel(project, deps.fail),
    ),
    onKey(ev: KeyboardEvent): boolean {
      // Q opens the queue here as from home: the button shows its key.
      const meaning = meaningOf(ev.key);
      if (meaning === "queue") deps.adjudicate();
      else if (meaning === "escape") deps.home();
      else return false;
      return true;
    },
    shown(): void {
      // A long path shows its end, the file's name, rather than its first folders.
      out.scrollLeft = out.scrollWidth;
      void refresh();
    },
  };
}
