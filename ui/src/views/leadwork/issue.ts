// Issuing a pack: an annotator's share of the work in a file they take away. The lead
// chooses who, which kind, how many items and the due date, and where the file goes; the
// items stay reserved for that annotator until the pack is merged back or falls due.

import { h, mount } from "../../dom";
import { readable } from "../../errors";
import { CHOOSE_HERE, count as grouped, isServerAddress } from "../../format";
import { api, ApiError, pickPackFile, type Annotator, type Overview, type PackIssued, type TaskKind } from "../../ipc";
import { oneAtATime } from "../../once";
import { pathField } from "../../path-field";
import { dueDate, PACK_KINDS, shortId } from "../packs";
import type { Screen } from "../screen";
import type { LeadDeps } from "./review";

const DAY = 86_400_000;

/** The date input's value for a day `days` after `now` (UTC, as due dates are shown). */
export function dayValue(now: number, days: number): string {
  return new Date(now + days * DAY).toISOString().slice(0, 10);
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** The UTC midnight of year `y`, month `m` (1–12), day `d`, or null when there is no such day. */
function utcDay(y: number, m: number, d: number): number | null {
  const t = Date.UTC(y, m - 1, d);
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d ? t : null;
}

/**
 * A day typed by a person, as UTC midnight, or what is wrong with it. Read as the app
 * writes days ("14 Dec 2026", "14 December 2026", "Dec 14, 2026") or as 2026-12-14. A
 * date of numbers alone is read only where its order cannot matter: 12/05/2026 is 12 May
 * to a British reader and 5 Dec to an American one, so it is refused with a way to say it.
 */
export function parseDay(text: string): number | string {
  const t = text.trim().toLowerCase().replace(/,/g, " ").replace(/\s+/g, " ");
  const month = (word: string): number => MONTHS.indexOf(word.slice(0, 3)) + 1;
  let y = 0;
  let m = 0;
  let d = 0;
  let match: RegExpMatchArray | null;
  if ((match = t.match(/^(\d{4})-(\d{1,2})-(\d{1,2})$/))) [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  else if ((match = t.match(/^(\d{1,2}) ([a-z]+)\.? (\d{4})$/))) [d, m, y] = [Number(match[1]), month(match[2] ?? ""), Number(match[3])];
  else if ((match = t.match(/^([a-z]+)\.? (\d{1,2}) (\d{4})$/))) [m, d, y] = [month(match[1] ?? ""), Number(match[2]), Number(match[3])];
  else if ((match = t.match(/^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/))) {
    const [a, b] = [Number(match[1]), Number(match[2])];
    if (a <= 12 && b <= 12 && a !== b) {
      const asWritten = (day: number, mon: number): string => `${day} ${MONTHS[mon - 1]?.replace(/^./, (c) => c.toUpperCase())} ${match?.[3]}`;
      return `Due: ${text.trim()} could be ${asWritten(a, b)} or ${asWritten(b, a)}; write the month as a word.`;
    }
    [d, m, y] = a > 12 ? [a, b, Number(match[3])] : b > 12 ? [b, a, Number(match[3])] : [a, b, Number(match[3])];
  } else return "Due: a day such as 14 Dec 2026.";
  return (m >= 1 && utcDay(y, m, d)) || "Due: no such day.";
}

/**
 * Whole days from today (UTC) to the due date typed, or what is wrong with it: a pack is
 * due at the earliest tomorrow.
 */
export function daysUntil(value: string, now: number): number | string {
  const due = parseDay(value);
  if (typeof due === "string") return due;
  const today = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`);
  const days = Math.round((due - today) / DAY);
  if (days < 1) return "Due: a day after today at the earliest.";
  if (days > 365) return "Due: within a year.";
  return days;
}

/** The suggested file: beside the project, named for the annotator and the day; none for a server. */
export function suggestedPath(projectPath: string, annotator: string, now: number): string {
  if (isServerAddress(projectPath)) return "";
  const cut = Math.max(projectPath.lastIndexOf("/"), projectPath.lastIndexOf("\\"));
  const dir = cut >= 0 ? projectPath.slice(0, cut + 1) : "";
  const safe = annotator.replace(/[^\p{L}\p{N}_-]+/gu, "-") || "pack";
  return `${dir}${safe}-${dayValue(now, 0)}.fdpack`;
}

/** Which field a refusal of the backend is about (`out`: the file asked for). */
export function issueField(e: unknown, out = ""): "annotator" | "count" | "out" | null {
  if (!(e instanceof ApiError)) return null;
  if (out && e.message.includes(fileNameOf(out))) return "out";
  if (e.code === "not_found" && /no open items/.test(e.message)) return "count";
  if (e.code === "not_found") return "annotator";
  if (e.code === "already_exists" || e.code === "io" || e.location !== null || e.code === "invalid_input") return "out";
  return null;
}

function fileNameOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

/** The form's choices: the packs table names a pack's kinds the same way. */
const KIND_CHOICES: [string, string][] = PACK_KINDS.map(([kind, name]) => [kind ?? "", name]);

export function issueScreen(o: Overview, deps: LeadDeps & { issued?: () => void }): Screen {
  const now = Date.now();
  const who = h("select", { class: "text-input", testid: "issue-annotator" });
  const kind = h("select", { class: "text-input", testid: "issue-kind" });
  for (const [value, label] of KIND_CHOICES) {
    const opt = h("option", {}, label);
    opt.value = value;
    kind.append(opt);
  }
  const items = h("input", { class: "text-input setting-number", testid: "issue-count", type: "text" });
  items.inputMode = "numeric";
  items.value = "50";
  // Typed, and said back as the app writes days: a date input shows its value in the
  // system's order, where 12/05/2026 was read as 5 Dec by a British lead.
  const due = h("input", { class: "text-input", testid: "issue-due", type: "text", placeholder: "14 Dec 2026" });
  due.value = dueDate(Date.parse(`${dayValue(now, 14)}T00:00:00Z`));
  const dueRead = h("span", { class: "muted small export-note", testid: "issue-due-read", "aria-live": "polite" });
  const readBack = (): void => {
    const days = daysUntil(due.value, Date.now());
    const at = parseDay(due.value);
    mount(dueRead, typeof days === "number" && typeof at === "number" ? `${dueDate(at)}, in ${days} ${days === 1 ? "day" : "days"}:` : "");
  };
  due.addEventListener("input", readBack);
  // A day typed another way (2026-12-14, Dec 14) is written back as the app writes days.
  due.addEventListener("blur", () => {
    const at = parseDay(due.value);
    if (typeof at === "number") due.value = dueDate(at);
  });
  readBack();
  const out = h("input", { class: "text-input export-out", testid: "issue-out", type: "text", dir: "auto", placeholder: CHOOSE_HERE });
  const outField = pathField(out);
  let outTouched = false;
  out.addEventListener("input", () => {
    outTouched = true;
  });
  const problem = (name: string): HTMLElement => h("p", { class: "error-text field-error", testid: `issue-error-${name}`, role: "alert" });
  const problems = { annotator: problem("annotator"), count: problem("count"), due: problem("due"), out: problem("out") };
  const general = problem("general");
  const result = h("div", { class: "export-result", testid: "issue-result", "aria-live": "polite" });
  for (const [name, input] of [["annotator", who], ["count", items], ["due", due], ["out", out]] as const) {
    input.id = `issue-${name}`;
    input.addEventListener("input", () => mount(problems[name]));
  }
  kind.id = "issue-kind";

  const suggest = (): void => {
    if (!outTouched && who.value) out.value = suggestedPath(o.path, who.value, now);
    outField.refresh();
  };
  who.addEventListener("change", suggest);

  function fill(list: Annotator[]): void {
    mount(who, ...list.map((a) => {
      const opt = h("option", {}, a.role === "lead" ? `${a.name} (lead)` : a.name);
      opt.value = a.name;
      return opt;
    }));
    const first = list.find((a) => a.role === "annotator") ?? list[0];
    if (first) who.value = first.name;
    suggest();
    if (!list.length) mount(problems.annotator, "Add an annotator on the home screen first.");
  }

  function clear(): void {
    for (const p of Object.values(problems)) mount(p);
    mount(general);
  }

  // One pack at a time: a double-click (or Enter twice) must not ask for a second pack,
  // whose refusal ("already exists") would hide the first one's success.
  const issue = oneAtATime(async (): Promise<void> => {
    clear();
    const n = /^\d+$/.test(items.value.trim()) ? Number(items.value.trim()) : 0;
    const days = daysUntil(due.value, Date.now());
    let wrong = false;
    const say = (at: HTMLElement, text: string): void => {
      wrong = true;
      mount(at, text);
    };
    if (!who.value) say(problems.annotator, "Choose who the pack is for.");
    if (n < 1 || n > 10_000) say(problems.count, "Items: a whole number from 1 to 10 000.");
    if (typeof days === "string") say(problems.due, days);
    if (!out.value.trim()) say(problems.out, "Say where to write the pack: a file path ending in .fdpack.");
    if (wrong || typeof days === "string") return;
    // The day as the app writes days, however it was typed (the field may not have lost
    // the focus that writes it back).
    const at = parseDay(due.value);
    if (typeof at === "number") due.value = dueDate(at);
    mount(result, h("p", { class: "muted" }, "Writing…"));
    try {
      const done: PackIssued = await api.issuePack(
        { annotator: who.value, count: n, kind: (kind.value || null) as TaskKind | null, expires_days: days },
        out.value.trim(),
      );
      mount(
        result,
        h(
          "div",
          { class: "export-done", testid: "issue-done" },
          h("strong", {}, `${grouped(done.items)} ${done.items === 1 ? "item" : "items"} for ${done.annotator}, due ${dueDate(done.expires_at)}`),
          // Short, as the packs table shows it; the whole id in the tooltip.
          h("div", {}, "Pack: ", h("code", { testid: "issue-pack-id", title: done.pack_id }, shortId(done.pack_id))),
          h("div", {}, "File: ", h("code", { testid: "issue-written" }, done.path)),
          h("p", { class: "muted small" }, "Give this file to the annotator; they open it in Factdesk and return the results to you."),
        ),
      );
      // "Write to" keeps the file just written, so it names the same file as "File:";
      // choosing someone else suggests a new one.
      outTouched = false;
      deps.issued?.();
    } catch (e) {
      mount(result);
      const field = issueField(e, out.value.trim());
      mount(field ? problems[field] : general, readable(e));
    }
  });

  const choose = async (): Promise<void> => {
    try {
      const picked = await pickPackFile(out.value);
      if (picked) {
        out.value = picked;
        outField.refresh();
        outTouched = true;
        mount(problems.out);
      }
    } catch (e) {
      deps.fail(e);
    }
  };

  const field = (label: string, id: string, input: HTMLElement, err: HTMLElement, note?: string, read?: HTMLElement): HTMLElement[] => {
    const l = h("label", { class: "export-label" }, label);
    l.htmlFor = id;
    return [l, h("div", {}, input, read ?? null, note ? h("span", { class: "muted small export-note" }, note) : null, err)];
  };

  const outLabel = h("label", {}, "Write to");
  outLabel.htmlFor = "issue-out";
  const form = h(
    "div",
    { class: "export-form" },
    ...field("For", "issue-annotator", who, problems.annotator),
    ...field("Kind", "issue-kind", kind, h("span")),
    ...field("Items", "issue-count", items, problems.count, "at most; fewer if fewer are open"),
    ...field("Due", "issue-due", due, problems.due, "its items go back to the pool after this day", dueRead),
  );
  form.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !(ev.target instanceof HTMLSelectElement)) void issue();
  });

  return {
    el: h(
      "main",
      { class: "lead-screen", testid: "issue" },
      h(
        "div",
        { class: "dash-head" },
        h("div", {}, h("h1", {}, "Issue a pack"), h("p", { class: "muted" }, "Work for a laptop: open items reserved for one annotator until the pack comes back or falls due.")),
        h("span", { class: "spacer" }),
        h("button", { testid: "issue-home", onclick: () => deps.home() }, "Home ", h("kbd", {}, "Esc")),
      ),
      h(
        "section",
        { class: "panel issue-panel" },
        form,
        h("h3", { class: "export-out-title" }, outLabel),
        h("div", { class: "inline-form" }, outField.el, h("button", { testid: "issue-choose", onclick: () => void choose() }, "Choose…")),
        problems.out,
        general,
        h("div", { class: "import-actions" }, h("button", { class: "primary", testid: "issue-write", onclick: () => void issue() }, "Issue pack")),
        result,
      ),
    ),
    onKey(ev: KeyboardEvent): boolean {
      if (ev.key !== "Escape") return false;
      deps.home();
      return true;
    },
    shown(): void {
      api.annotators().then(fill, deps.fail);
      who.focus();
    },
  };
}
