// The lead's import panel: choose claim files (and documents), a format, and watch the
// import run in the background. The project is unchanged unless the import succeeds.

import { h, mount } from "../dom";
import { errorText } from "../errors";
import { count, fileName, plural } from "../format";
import { ApiError, api, onImport, pickImportFiles, type EvidenceStance, type ImportProgress, type ImportReport } from "../ipc";

export const PRESETS: [value: string, label: string][] = [
  ["native", "Factdesk (JSONL, CSV, TSV)"],
  ["covid-fact", "COVID-Fact"],
  ["wikifactcheck", "WikiFactCheck-English"],
  ["fever", "FEVER"],
];

/** What the evidence guideline asks for under each stance, as the import summary says it. */
const STANCES: Record<EvidenceStance, string> = {
  supports: "support the claim",
  supports_or_refutes: "support or refute the claim",
};

/** "Ranking candidates: 1 200 of 4 086", or just the phase when the total is unknown. */
export function progressLabel(p: ImportProgress, elapsedMs?: number): string {
  const phase = p.phase ? p.phase[0]?.toUpperCase() + p.phase.slice(1) : "Working";
  if (p.total === 0) return `${phase}…`;
  const done = `${phase}: ${count(p.done)} of ${count(p.total)}`;
  // Rate and time left once the phase has run long enough to measure them.
  if (elapsedMs === undefined || elapsedMs < 250 || p.done === 0) return done;
  const rate = p.done / (elapsedMs / 1000);
  const left = Math.ceil((p.total - p.done) / rate);
  return `${done}, ${count(Math.round(rate))}/s, ${left < 60 ? `${left} s` : `${Math.ceil(left / 60)} min`} left`;
}

/** One line on what an import did. */
export function importSummary(r: ImportReport): string {
  const parts = [
    plural(r.claims_added, "claim") + " added",
    plural(r.documents_added, "document"),
    plural(r.sentences_added, "sentence"),
    plural(r.claims_ranked, "claim") + " ranked",
  ];
  if (r.unchanged > 0) parts.push(`${plural(r.unchanged, "row")} already there`);
  if (r.rejected > 0) parts.push(`${plural(r.rejected, "row")} rejected`);
  const stance = r.evidence_stance ? ` Evidence tasks ask for sentences that ${STANCES[r.evidence_stance]}.` : "";
  // COVID-Fact's rows carry only their gold sentences: evidence items need distractors.
  const goldOnly =
    r.gold_only_candidates > 0
      ? ` Every candidate of ${plural(r.gold_only_candidates, "claim")} is its own published evidence: add distractors before evidence tasks (docs/formats.md).`
      : "";
  return parts.join(", ") + "." + stance + goldOnly;
}

function fileList(paths: string[], empty: string): string {
  return paths.length ? paths.map(fileName).join(", ") : empty;
}

/** The panel; `imported` runs after a successful import so counts can refresh. */
export function importPanel(fail: (e: unknown) => void, imported: () => Promise<void>): HTMLElement {
  let claims: string[] = [];
  let documents: string[] = [];
  const preset = h("select", { class: "text-input", testid: "import-preset", "aria-label": "Format" });
  for (const [value, label] of PRESETS) {
    const option = h("option", {}, label);
    option.value = value;
    preset.append(option);
  }
  const claimsText = h("span", { class: "muted small", testid: "import-claims" }, "No claim file chosen");
  const docsText = h("span", { class: "muted small", testid: "import-docs" }, "No documents (optional)");
  const status = h("div", { class: "import-status", testid: "import-status", "aria-live": "polite" });
  const go = h("button", { class: "primary", testid: "import-start", disabled: true }, "Import");

  const choose = async (documentsToo: boolean): Promise<void> => {
    const picked = await pickImportFiles(documentsToo ? "Documents to import" : "Claims to import");
    if (!picked.length) return;
    if (documentsToo) documents = picked;
    else claims = picked;
    mount(claimsText, fileList(claims, "No claim file chosen"));
    mount(docsText, fileList(documents, "No documents (optional)"));
    go.disabled = claims.length === 0;
  };

  const run = async (): Promise<void> => {
    go.disabled = true;
    const bar = h("progress", { class: "progress-bar" });
    const label = h("span", { class: "muted small" }, "Starting…");
    const cancel = h("button", { testid: "import-cancel" }, "Cancel");
    cancel.addEventListener("click", () => {
      cancel.disabled = true;
      mount(label, "Cancelling…");
      api.cancelImport().catch(fail);
    });
    mount(status, bar, label, cancel);
    let phase = { name: "", started: Date.now() };
    const stop = await onImport(
      (p) => {
        if (p.phase !== phase.name) phase = { name: p.phase, started: Date.now() };
        if (p.total > 0) {
          bar.max = p.total;
          bar.value = p.done;
        } else bar.removeAttribute("value");
        if (!cancel.disabled) mount(label, progressLabel(p, Date.now() - phase.started));
      },
      (outcome) => {
        stop();
        go.disabled = claims.length === 0;
        if (outcome.report) {
          mount(status, h("span", { class: "ok", testid: "import-done" }, importSummary(outcome.report)));
          imported().catch(fail);
        } else if (outcome.error?.code === "cancelled") {
          mount(status, h("span", { class: "muted", testid: "import-cancelled" }, "Cancelled. Nothing was imported."));
        } else if (outcome.error) {
          const why = errorText(new ApiError(outcome.error));
          mount(status, h("span", { class: "danger", testid: "import-error" }, `${why} Nothing was imported.`));
        }
      },
    );
    try {
      await api.startImport(claims, documents, preset.value);
    } catch (e) {
      stop();
      go.disabled = false;
      mount(status);
      fail(e);
    }
  };
  go.addEventListener("click", () => void run());

  return h(
    "div",
    { class: "panel import-panel" },
    h("h3", {}, "Import"),
    h("p", { class: "muted small" }, "Claims and their documents; candidates are ranked as they come in. Re-importing the same rows adds nothing."),
    h(
      "div",
      { class: "import-grid" },
      h("label", { class: "muted small" }, "Format"),
      preset,
      h("button", { testid: "import-choose-claims", onclick: () => void choose(false).catch(fail) }, "Claims…"),
      claimsText,
      h("button", { testid: "import-choose-docs", onclick: () => void choose(true).catch(fail) }, "Documents…"),
      docsText,
    ),
    h("div", { class: "import-actions" }, go, status),
  );
}
