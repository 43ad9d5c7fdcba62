// The lead's decisions on flagged annotators: someone who failed too many trick sentences
// leaves agreement and gold data until the lead counts them again or leaves them out for
// good. Every annotator with a trick record is listed; a decision can be taken back.

import { h, mount } from "../../dom";
import { capOf, KEYMAP, keyRows, meaningOf, type Meaning } from "../../keymap";
import { plainError } from "../../errors";
import { percent } from "../../format";
import { api, type Annotator } from "../../ipc";
import type { Screen } from "../screen";
import { keysPanel, type LeadDeps } from "./review";

const KEYS: [string, string][] = keyRows([
  "include",
  "leave-out",
  ["undo", "the flag decides again"],
  ["next", "the next person"],
  ["back", "the person before"],
  "escape",
]);

/** Where someone stands, in words: flagged or not, and the lead's decision. */
export function standing(a: Annotator): string {
  const decided = a.flag_override === "include" ? "counted by your decision" : a.flag_override === "exclude" ? "left out by your decision" : null;
  // The FLAGGED badge stands beside it: the words say what follows from it.
  if (a.flagged) return decided ?? "left out until you decide";
  return decided ?? "counted";
}

/** The people a lead decides on: flagged ones first, then anyone with a decision, then the rest. */
export function flagOrder(list: Annotator[]): Annotator[] {
  const rank = (a: Annotator): number => (a.flagged ? 0 : a.flag_override ? 1 : 2);
  return list.filter((a) => a.role === "annotator" || a.tricks_seen > 0).sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

export function flagsScreen(deps: LeadDeps): Screen {
  let people: Annotator[] = [];
  let at = 0;
  const rows = h("tbody", { testid: "flag-rows" });
  const status = h("p", { class: "adj-notice", testid: "flags-status", role: "status" });
  const problem = h("p", { class: "error-text field-error", testid: "flags-problem", role: "alert" });

  function row(a: Annotator, i: number): HTMLElement {
    // Each button is named as its key's meaning in the keys panel, and shows the key.
    const button = (meaning: Meaning, label: string, key: string, include: boolean | null, pressed: boolean): HTMLButtonElement =>
      h(
        "button",
        { class: "small", testid: `flag-${key}-${a.name}`, "aria-pressed": String(pressed), title: KEYMAP[meaning].does, onclick: () => void decide(i, include) },
        label,
        " ",
        h("kbd", {}, capOf(meaning)),
      );
    // Undo is an action, not a state: never shown pressed, and unavailable with no
    // decision to undo.
    const undo = button("undo", "Undo", "clear", null, false);
    // Named as its key, I; nothing to do for a person whose answers already count.
    const include = button("include", "Include", "include", true, a.flag_override === "include");
    include.disabled = a.counted;
    undo.removeAttribute("aria-pressed");
    undo.disabled = a.flag_override === null;
    const rate = percent(a.trick_failure_rate);
    // The 95% interval in short (the column's heading names it), so the standing beside
    // it keeps its room.
    const interval = a.trick_failure_ci95 ? ` (${percent(a.trick_failure_ci95[0]).replace("%", "")}–${percent(a.trick_failure_ci95[1])})` : "";
    const stands = standing(a);
    // One line a person, whatever the window: a cell too narrow for its words cuts them
    // with an ellipsis (flags.css), and its tooltip says them whole.
    return h(
      "tr",
      { testid: `flag-row-${a.name}`, class: [i === at ? "current" : "", a.flagged ? "flagged" : ""].join(" ").trim() || undefined, "aria-current": i === at ? "true" : "false" },
      h("th", { dir: "auto", title: a.name }, a.name),
      h("td", { class: "num", title: String(a.tricks_seen) }, String(a.tricks_seen)),
      h("td", { class: "num", title: String(a.tricks_failed) }, String(a.tricks_failed)),
      // The interval the flag is decided on: flagged when its low end is above the threshold.
      h("td", { class: "num", testid: `flag-rate-${a.name}`, title: a.trick_failure_ci95 ? `${rate}, 95% confidence interval${interval}` : rate }, rate, interval ? h("span", { class: "muted small" }, interval) : null),
      h(
        "td",
        { testid: `flag-standing-${a.name}`, title: a.flagged ? `Flagged: ${stands}` : stands },
        a.flagged ? h("span", { class: "badge badge-danger" }, "FLAGGED") : null,
        " ",
        stands,
      ),
      // The buttons sit in a box of their own: a table cell made a flex box stops being a
      // cell (its row's border and height came apart).
      h(
        "td",
        {},
        h(
          "div",
          { class: "flag-actions" },
          include,
          button("leave-out", "Leave out", "exclude", false, a.flag_override === "exclude"),
          undo,
        ),
      ),
    );
  }

  function empty(): HTMLElement {
    const cell = h("td", { class: "muted", testid: "flags-empty" }, "No annotators yet.");
    cell.colSpan = 6;
    return cell;
  }

  function draw(): void {
    mount(
      rows,
      ...(people.length
        ? people.map(row)
        : [h("tr", {}, empty())]),
    );
  }

  async function load(): Promise<void> {
    people = flagOrder(await api.annotators());
    at = Math.min(at, Math.max(people.length - 1, 0));
    draw();
  }

  async function decide(i: number, include: boolean | null): Promise<void> {
    const a = people[i];
    if (!a) return;
    at = i;
    // I on a row already counted does what its disabled button would: nothing.
    if (include === true && a.counted) return;
    mount(problem);
    try {
      const after = await api.flagDecision(a.name, include);
      mount(status, `${after.name}: ${standing(after)}.`);
      await load();
    } catch (e) {
      mount(problem, plainError(`Could not record the decision on ${a.name}`, e));
    }
  }

  function move(by: number): void {
    if (!people.length) return;
    at = Math.min(Math.max(at + by, 0), people.length - 1);
    draw();
  }

  const el = h(
    "main",
    { class: "lead-screen", testid: "flags" },
    h(
      "div",
      { class: "dash-head" },
      h(
        "div",
        {},
        h("h1", {}, "Flagged annotators"),
        h("p", { class: "muted" }, "Someone who fails too many trick sentences is left out of agreement and gold data until you decide."),
      ),
      h("span", { class: "spacer" }),
      h("button", { testid: "flags-home", onclick: () => deps.home() }, "Home ", h("kbd", {}, "Esc")),
    ),
    status,
    h(
      "div",
      { class: "lead-screen-grid" },
      h(
        "section",
        { class: "panel" },
        h(
          "table",
          { class: "table flags-table" },
          // Fixed widths for the figures and the buttons; the name and the standing share the rest.
          h(
            "colgroup",
            {},
            ...["name", "seen", "failed", "rate", "standing", "decision"].map((c) => h("col", { class: `flag-col-${c}` })),
          ),
          h("thead", {}, h("tr", {}, ...["Name", "Tricks seen", "Failed", "Rate (95% CI)", "Standing", "Decision"].map((t) => h("th", {}, t)))),
          rows,
        ),
        problem,
      ),
      keysPanel(KEYS),
    ),
  );

  return {
    el,
    onKey(ev: KeyboardEvent): boolean {
      const meaning = meaningOf(ev.key);
      if (meaning === "escape") deps.home();
      else if (meaning === "include") void decide(at, true);
      else if (meaning === "leave-out") void decide(at, false);
      else if (meaning === "undo") void decide(at, null);
      else if (meaning === "next") move(1);
      else if (meaning === "back") move(-1);
      else return false;
      return true;
    },
    shown(): void {
      void load().catch(deps.fail);
    },
  };
}
