// The raw answers from the export screen: every answer ever given (superseded, rejected
// and not-counted ones too, each marked) as JSON Lines, CSV or Parquet, for leads who
// analyse their annotators' work. The same as `factdesk answers`.

import { h, mount } from "../dom";
import { plainError } from "../errors";
import { CHOOSE_HERE, count, isServerAddress } from "../format";
import { api, pickAnswersFile, type AnswersFormat, type Overview } from "../ipc";

export const ANSWER_FORMATS: readonly AnswersFormat[] = ["jsonl", "csv", "parquet"];

/** `path` with its extension set to the format's: a.jsonl → a.csv. */
export function withExtension(path: string, format: AnswersFormat): string {
  const known = /\.(jsonl|csv|parquet)$/i;
  return known.test(path) ? path.replace(known, `.${format}`) : `${path}.${format}`;
}

/** `<project>.answers.jsonl` beside the project file; none for a server. */
export function defaultAnswersPath(projectPath: string, format: AnswersFormat): string {
  if (isServerAddress(projectPath)) return "";
  return `${projectPath.replace(/\.fdesk$/i, "")}.answers.${format}`;
}

/** The panel: format, where to write, whether to replace a file there, and the result. */
export function answersPanel(project: Overview, fail: (e: unknown) => void): HTMLElement {
  const names: Record<AnswersFormat, string> = { jsonl: "JSON Lines", csv: "CSV", parquet: "Parquet" };
  const format = h("select", { class: "text-input", testid: "answers-format", "aria-label": "Answers format" });
  for (const f of ANSWER_FORMATS) {
    const o = h("option", {}, names[f]);
    o.value = f;
    format.append(o);
  }
  const out = h("input", { class: "text-input export-out", testid: "answers-out", type: "text", "aria-label": "Answers file", dir: "auto", placeholder: CHOOSE_HERE });
  out.value = defaultAnswersPath(project.path, "jsonl");
  const force = h("input", { testid: "answers-force", type: "checkbox", "aria-label": "Replace an existing file" });
  const problem = h("p", { class: "error-text field-error", testid: "answers-problem", role: "alert" });
  const result = h("div", { class: "export-result", testid: "answers-result" });
  const chosen = (): AnswersFormat => format.value as AnswersFormat;
  format.addEventListener("change", () => {
    const typed = out.value.trim() || defaultAnswersPath(project.path, chosen());
    if (typed) out.value = withExtension(typed, chosen());
  });
  out.addEventListener("input", () => mount(problem));

  async function write(): Promise<void> {
    const path = out.value.trim();
    if (!path) return void mount(problem, "Say where to write the answers: a file path.");
    mount(problem);
    mount(result, h("p", { class: "muted" }, "Writing…"));
    try {
      const r = await api.exportAnswers(path, chosen(), force.checked);
      mount(
        result,
        h(
          "div",
          { class: "export-done", testid: "answers-done" },
          h("strong", {}, `Wrote ${count(r.rows)} answers`),
          h("div", {}, `${count(r.counted)} counted, ${count(r.superseded)} superseded, ${count(r.rejected)} rejected`),
          h("div", {}, "File: ", h("code", { testid: "answers-written" }, r.out)),
        ),
      );
    } catch (e) {
      mount(result, "");
      mount(problem, plainError(`Could not write ${path}`, e));
    }
  }

  const choose = async (): Promise<void> => {
    try {
      const picked = await pickAnswersFile(out.value, chosen());
      if (picked) {
        out.value = picked;
        mount(problem);
      }
    } catch (e) {
      fail(e);
    }
  };

  return h(
    "section",
    { class: "panel", testid: "answers-panel" },
    h("h3", {}, "Raw answers"),
    h("p", { class: "muted small" }, "Every answer ever given, one row each: superseded and rejected answers too, each marked, with whether it counted."),
    h("div", { class: "export-form" }, h("label", { class: "export-label" }, "Format"), h("div", {}, format)),
    h("div", { class: "inline-form" }, out, h("button", { testid: "answers-choose", onclick: () => void choose() }, "Choose…")),
    h("label", { class: "export-check" }, force, " replace a file already there"),
    problem,
    h("div", { class: "import-actions" }, h("button", { testid: "answers-write", onclick: () => void write() }, "Write answers")),
    result,
  );
}
