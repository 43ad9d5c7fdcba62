// The lead's panel on the home screen: hand out work, add people, watch who fails the
// trick sentences, and the project's counts.

import { capOf, meaningOf, type Meaning } from "../keymap";
import { h, mount } from "../dom";
import { percent } from "../format";
import { api, type Annotator, type NoTask, type Overview, type Role, type TaskKind, type TasksReport } from "../ipc";
import type { HomeDeps, LeadScreen } from "./home";
import { importPanel } from "./importer";
import { overviewGroups } from "./overview";
import { packsPanel } from "./packs";
import { problemsPanel } from "./problems";
import { KIND_TITLES } from "./work/chrome";

const KINDS: TaskKind[] = ["evidence", "refute", "verify", "label"];

/** Claims the project's kinds of task are meant for that got none, and why. */
export function noTaskLines(noTask: NoTask[]): string[] {
  return noTask.map((n) => `${n.count} ${n.count === 1 ? "claim" : "claims"} got no ${n.kind} task: ${n.message}`);
}

/** What creating tasks did, with each reason claims got none and how many. */
export function tasksText(r: TasksReport): string {
  // Each side with its own overlap: tasks already there keep the one they were made with.
  const created = r.created > 0 ? `${r.created} created (overlap ${r.overlap})` : "none created";
  const held = r.existing_overlaps.length ? ` (made with overlap ${r.existing_overlaps.join(" or ")})` : "";
  const made = r.existing > 0 ? `${created}, ${r.existing} already there${held}` : created;
  const none = r.skipped.map((s) => `${s.count} claims got none: ${s.message}`);
  const noTrick = r.without_trick > 0 ? [`${r.without_trick} show no trick: no unrelated sentence was found for them`] : [];
  const unlike =
    r.tricks_unlike_options > 0
      ? [`${r.tricks_unlike_options} show a trick other items show more or less often than real options: import documents no claim names to avoid it`]
      : [];
  return [made, ...none, ...noTrick, ...unlike].join("; ");
}

function taskRow(kind: TaskKind, deps: HomeDeps, refresh: () => Promise<void>): HTMLElement {
  const overlap = h("input", {
    class: "text-input overlap",
    testid: `overlap-${kind}`,
    type: "number",
    "aria-label": `Annotators per ${kind} item`,
  });
  overlap.min = "1";
  overlap.value = "3";
  const result = h("span", { class: "muted", testid: `created-${kind}` });
  const create = async (): Promise<void> => {
    try {
      const n = Number(overlap.value);
      const r = await api.createTasks(kind, Number.isInteger(n) && n > 0 ? n : null);
      mount(result, tasksText(r));
      await refresh();
    } catch (e) {
      deps.fail(e);
    }
  };
  return h(
    "tr",
    {},
    h("th", {}, KIND_TITLES[kind]),
    h("td", {}, h("label", { class: "overlap-label" }, overlap, " per item")),
    h("td", {}, h("button", { testid: `create-${kind}`, onclick: () => void create() }, "Create tasks")),
    h("td", {}, result),
  );
}

function status(a: Annotator): HTMLElement {
  if (a.flagged) {
    const decided = a.flag_override === "include" ? "answers counted (lead's decision)" : "answers left out";
    return h(
      "span",
      { class: "status-cell" },
      h("span", { class: "badge badge-danger", testid: `flagged-${a.name}` }, "FLAGGED"),
      h("span", { class: "muted" }, decided),
    );
  }
  if (!a.counted) return h("span", { class: "muted" }, "left out (lead's decision)");
  return h("span", { class: "muted" }, "counted");
}

function annotatorRow(a: Annotator): HTMLElement {
  return h(
    "tr",
    { testid: `annotator-${a.name}`, class: a.flagged ? "flagged" : undefined },
    h("th", {}, a.name),
    h("td", {}, a.role),
    h("td", { class: "num" }, String(a.tricks_seen)),
    h("td", { class: "num" }, String(a.tricks_failed)),
    h("td", { class: "num", testid: `trick-rate-${a.name}` }, percent(a.trick_failure_rate)),
    h("td", {}, status(a)),
  );
}

function addPersonForm(deps: HomeDeps, refresh: () => Promise<void>): HTMLElement {
  const name = h("input", { class: "text-input", testid: "new-person-name", type: "text", placeholder: "Name", "aria-label": "Name", dir: "auto" });
  const role = h("select", { class: "text-input", testid: "new-person-role", "aria-label": "Role" });
  for (const [value, label] of [["annotator", "Annotator"], ["lead", "Lead"]] as const) {
    const option = h("option", {}, label);
    option.value = value;
    role.append(option);
  }
  const done = h("span", { class: "muted", testid: "person-added" });
  const add = async (): Promise<void> => {
    if (!name.value.trim()) return;
    try {
      const p = await api.addPerson(name.value.trim(), role.value as Role);
      mount(done, `${p.name} added as ${p.role}.`);
      name.value = "";
      await refresh();
    } catch (e) {
      deps.fail(e);
    }
  };
  name.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") void add();
  });
  return h(
    "div",
    { class: "inline-form" },
    name,
    role,
    h("button", { testid: "add-person", onclick: () => void add() }, "Add person"),
    done,
  );
}

/** One of the lead's tools on the home screen: its key's meaning, its button and what it opens. */
export interface LeadTool {
  meaning: Meaning;
  testid: string;
  label: string;
  title?: string;
  open: () => void;
}

/** The lead's tools, in the order they are drawn: those the shell offers here. */
export function leadTools(deps: HomeDeps): LeadTool[] {
  const lead = (meaning: Meaning, testid: string, label: string, screen: LeadScreen): LeadTool[] =>
    deps.lead ? [{ meaning, testid, label, open: () => deps.lead?.(screen) }] : [];
  type Opener = "dashboard" | "adjudicate" | "exportGold" | "claims";
  const given = (meaning: Meaning, testid: string, label: string, opener: Opener, title?: string): LeadTool[] =>
    deps[opener] ? [{ meaning, testid, label, open: () => deps[opener]?.(), ...(title ? { title } : {}) }] : [];
  return [
    ...given("dashboard", "open-dashboard", "Agreement dashboard", "dashboard", "Kappa and alpha per kind, pairs, pace and trick failures, live"),
    ...given("queue", "open-adjudicate", "Adjudication queue", "adjudicate"),
    ...given("export", "open-export", "Export gold data", "exportGold"),
    ...given("claims", "open-claims", "Claims", "claims"),
    ...lead("review", "open-review", "Refutation review", "review"),
    ...lead("flags", "open-flags", "Flagged annotators", "flags"),
    ...lead("settings", "open-settings", "Project settings", "settings"),
    ...lead("issue", "open-issue-pack", "Issue a pack", "issue"),
  ];
}

/** A tool's button: its name, and its key drawn as the kind cards draw theirs. */
function toolButton(t: LeadTool): HTMLElement {
  return h(
    "button",
    { class: t.meaning === "dashboard" ? "primary lead-tool" : "lead-tool", testid: t.testid, title: t.title, onclick: () => t.open() },
    h("span", { class: "lead-tool-label" }, t.label),
    h("kbd", { testid: `${t.testid}-key` }, capOf(t.meaning)),
  );
}

export function leadPanel(o: Overview, deps: HomeDeps): { el: HTMLElement; load: () => void; onKey: (ev: KeyboardEvent) => boolean } {
  const annotators = h("tbody", { testid: "annotators" });
  const counts = h("div", {}, overviewGroups(o));
  const noTask = h("ul", { class: "muted small no-task", testid: "no-task" });
  const showNoTask = (list: NoTask[]): void => mount(noTask, ...noTaskLines(list).map((line) => h("li", {}, line)));
  const packs = packsPanel(
    deps.fail,
    () => void refresh().catch(deps.fail),
    deps.lead ? () => deps.lead?.("issue") : undefined,
  );

  async function refresh(): Promise<void> {
    const [list, overview, withoutTasks] = await Promise.all([api.annotators(), api.overview(), api.claimsWithoutTasks()]);
    mount(annotators, ...list.map(annotatorRow));
    mount(counts, overviewGroups(overview));
    showNoTask(withoutTasks);
    deps.changed(overview);
  }

  const problems = problemsPanel(deps.fail);
  const tools = leadTools(deps);
  const el = h(
    "section",
    { class: "lead", testid: "lead-panel" },
    h("h2", { class: "section-title" }, "Lead"),
    // The tools in one block of even buttons, so that all of them and the table of
    // annotators below fit the first screen at 1024×640; each with its key, as the kinds
    // of work have theirs.
    h("div", { class: "lead-tools", testid: "lead-tools" }, ...tools.map(toolButton)),
    h(
      "div",
      { class: "lead-grid" },
      h(
        "div",
        { class: "panel" },
        h("h3", {}, "Annotators"),
        h("p", { class: "muted small" }, "Trick sentences failed. Flagged annotators' answers leave agreement and gold data until you decide."),
        h(
          "table",
          { class: "table" },
          h(
            "thead",
            {},
            h("tr", {}, ...["Name", "Role", "Tricks seen", "Failed", "Rate", "Status"].map((t) => h("th", {}, t))),
          ),
          annotators,
        ),
        h("h3", {}, "Add a person"),
        addPersonForm(deps, refresh),
      ),
      h(
        "div",
        { class: "panel" },
        h("h3", {}, "Create tasks"),
        h("p", { class: "muted small" }, "One task per eligible claim; existing tasks are kept."),
        h("table", { class: "table" }, h("tbody", {}, ...KINDS.map((k) => taskRow(k, deps, refresh)))),
        noTask,
      ),
    ),
    problems.el,
    importPanel(deps.fail, refresh),
    packs.el,
    counts,
  );
  return {
    el,
    onKey: (ev: KeyboardEvent): boolean => {
      const meaning = meaningOf(ev.key);
      const tool = tools.find((t) => t.meaning === meaning);
      if (!tool) return false;
      tool.open();
      return true;
    },
    load: () => {
      void refresh().catch(deps.fail);
      packs.load();
      problems.load();
    },
  };
}
