// The project's settings for the lead: how items are served (overlap, routing, stance,
// highlighting), when annotators are flagged, how new writers qualify, and the
// guidelines. A setting the project refuses is explained under its own field. Below them,
// the candidate ranking and "Re-rank candidates" (rerank.ts).

import { h, mount } from "../../dom";
import { capOf, isSave, keyName, meaningOf } from "../../keymap";
import { readable, sentence } from "../../errors";
import { api, ApiError, type Settings } from "../../ipc";
import { oneAtATime } from "../../once";
import type { Screen } from "../screen";
import { rerankPanel } from "./rerank";
import type { LeadDeps } from "./review";

type Input = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** One editable setting: how it is read from and written into the settings. */
interface Field {
  /** The settings' own name (dotted for guidelines): errors name it. */
  key: string;
  label: string;
  /** A line under the box; one that depends on the value is told it as it changes. */
  note?: string | ((value: string) => string);
  input: () => Input;
  show: (s: Settings, el: Input) => void;
  /** Writes the value into `s`, or returns what is wrong with it in plain words. */
  read: (el: Input, s: Settings) => string | null;
}

/** The largest whole number a setting holds (the backend's u32). */
const MAX_WHOLE = 4_294_967_295;

/**
 * A whole number from a field, or null. One too large for the backend is refused here,
 * under its field: sent on, it would fail as an unreadable request, far from the field.
 */
export function wholeNumber(text: string): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return n <= MAX_WHOLE ? n : null;
}

/** A percentage typed as "20" or "20%" as a share (0.2), or null. */
export function share(text: string): number | null {
  const t = text.trim().replace(/%$/, "").trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return null;
  return Number(t) / 100;
}

/** A share shown as a percentage without float noise: 0.2 → "20". */
export function percentText(s: number): string {
  return String(Math.round(s * 10_000) / 100);
}

function numberInput(key: string): HTMLInputElement {
  const el = h("input", { class: "text-input setting-number", testid: `setting-${key}`, type: "text", "aria-label": key });
  el.inputMode = "numeric";
  return el;
}

function select(key: string, options: [string, string][]): HTMLSelectElement {
  const el = h("select", { class: "text-input", testid: `setting-${key}` });
  for (const [value, label] of options) {
    const o = h("option", {}, label);
    o.value = value;
    el.append(o);
  }
  return el;
}

/** The settings that are plain whole numbers. */
type WholeSetting = "overlap" | "reservation_minutes" | "trick_min_seen" | "qualification_items" | "qualification_min_accepted" | "refute_max_tokens";

function whole(key: WholeSetting, label: string, note?: string): Field {
  return {
    key,
    label,
    note,
    input: () => numberInput(key),
    show: (s, el) => {
      el.value = String(s[key]);
    },
    read: (el, s) => {
      const n = wholeNumber(el.value);
      if (n === null) return `${label}: a whole number, such as ${String(s[key])}.`;
      s[key] = n;
      return null;
    },
  };
}

function guideline(kind: "evidence" | "refute" | "verify" | "label", label: string, note?: string): Field {
  return {
    key: `guidelines.${kind}`,
    label,
    note,
    input: () => {
      const el = h("textarea", { class: "text-input setting-guideline", testid: `setting-guidelines-${kind}`, dir: "auto" });
      el.rows = 2;
      return el;
    },
    show: (s, el) => {
      el.value = s.guidelines[kind];
      // Tall enough for the whole text (to a point): a guideline cut mid-line hid what
      // annotators are told.
      if (el instanceof HTMLTextAreaElement) el.rows = Math.min(8, Math.max(2, Math.ceil(el.value.length / 95) + 1));
    },
    read: (el, s) => {
      s.guidelines[kind] = el.value;
      return null;
    },
  };
}

/**
 * What the trick checks under each stance (the report and the dataset card say the same):
 * under `supports` the negation can be told by its form, so a lead should know that its
 * trick measures attention rather than reading.
 */
export function stanceNote(value: string): string {
  const trick =
    value === "supports"
      ? "The trick is the claim's negation (“It is not true that …”): its form gives it away, so it checks attention, not careful reading."
      : "The trick is a real sentence from another document that neither supports nor refutes the claim: picking it shows the options were not read.";
  return `${trick} Fixed once evidence answers exist.`;
}

/**
 * What marking the claim's words does to the trick: under `supports` the negation is the
 * one option with every claim word marked, under `supports_or_refutes` (a sentence of
 * another document) the one with none, so either way the marks point at it.
 */
export function highlightNote(value: string): string {
  const tell =
    "under “support” the trick (the claim's negation) is the one option with every claim word marked; under “support or refute” it is the one with none";
  return value === "on"
    ? `Makes the trick easy to spot by its look: ${tell}.`
    : `Off by default under either stance, as marks would point at the trick: ${tell}.`;
}

const FIELDS: Field[] = [
  whole("overlap", "Annotators per item", "for tasks created from now on"),
  {
    key: "routing",
    label: "Routing",
    input: () =>
      select("routing", [
        ["fill_first", "Fill first: everyone walks the same order"],
        ["spread", "Spread: each person starts elsewhere"],
      ]),
    show: (s, el) => {
      el.value = s.routing;
    },
    read: (el, s) => {
      s.routing = el.value === "spread" ? "spread" : "fill_first";
      return null;
    },
  },
  {
    key: "evidence_stance",
    label: "Evidence asked for",
    note: stanceNote,
    input: () =>
      select("evidence_stance", [
        ["supports_or_refutes", "Sentences that support or refute the claim"],
        ["supports", "Sentences that support the claim"],
      ]),
    show: (s, el) => {
      el.value = s.evidence_stance ?? "supports_or_refutes";
    },
    read: (el, s) => {
      s.evidence_stance = el.value === "supports" ? "supports" : "supports_or_refutes";
      return null;
    },
  },
  {
    key: "highlight_claim_words",
    label: "Mark the claim's words",
    note: highlightNote,
    // Off (the default, null) under either stance: no stance has marks that leave the
    // trick looking like the other options.
    input: () =>
      select("highlight_claim_words", [
        ["off", "Off"],
        ["on", "On"],
      ]),
    show: (s, el) => {
      el.value = s.highlight_claim_words === true ? "on" : "off";
    },
    read: (el, s) => {
      s.highlight_claim_words = el.value === "on" ? true : null;
      return null;
    },
  },
  whole("reservation_minutes", "Reserved for (minutes)", "an opened item stays with its annotator"),
  {
    key: "trick_flag_threshold",
    label: "Flag above (% tricks failed)",
    input: () => numberInput("trick_flag_threshold"),
    show: (s, el) => {
      el.value = percentText(s.trick_flag_threshold);
    },
    read: (el, s) => {
      const v = share(el.value);
      if (v === null) return "Flag above: a percentage, such as 20.";
      s.trick_flag_threshold = v;
      return null;
    },
  },
  whole("trick_min_seen", "…after tricks seen"),
  whole("qualification_items", "New writer: reviewed items"),
  whole("qualification_min_accepted", "…of which accepted"),
  whole("refute_max_tokens", "Refute claims up to (words)"),
  {
    key: "trick_template",
    label: "Trick sentence",
    note: "{claim} is where the claim goes",
    input: () => h("input", { class: "text-input setting-wide", testid: "setting-trick_template", type: "text", dir: "auto" }),
    show: (s, el) => {
      el.value = s.trick_template;
    },
    read: (el, s) => {
      s.trick_template = el.value;
      return null;
    },
  },
  guideline("evidence", "Evidence guideline", "leave Factdesk's own to follow the stance"),
  guideline("refute", "Refutation guideline"),
  guideline("verify", "Verification guideline"),
  guideline("label", "Label guideline"),
  {
    key: "disagreement_categories",
    label: "Disagreement categories",
    note: "one a line; the lead names one when settling a disagreement, and the report counts them",
    input: () => {
      const el = h("textarea", { class: "text-input setting-guideline", testid: "setting-disagreement_categories", dir: "auto" });
      el.rows = 3;
      return el;
    },
    show: (s, el) => {
      el.value = s.disagreement_categories.join("\n");
      if (el instanceof HTMLTextAreaElement) el.rows = Math.min(8, Math.max(3, s.disagreement_categories.length));
    },
    read: (el, s) => {
      s.disagreement_categories = categoryLines(el.value);
      return null;
    },
  },
];

/** The categories typed one a line: each trimmed, blank lines dropped. */
export function categoryLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** A field's value in `s` as its box would show it, to compare settings field by field. */
function shownValue(f: Field, s: Settings): string {
  const el = f.input();
  f.show(s, el);
  return el.value;
}

/**
 * What to save when the screen was read as `read`, the lead typed `typed` (field key →
 * value) and the project now holds `now` (another window may have saved since): the
 * project's settings with only the fields the lead changed written over them. A field
 * changed both here and elsewhere, to different values, is a clash and nothing is saved.
 */
export function mergeSettings(read: Settings, now: Settings, typed: Map<string, string>): { keys: string[]; clashes: string[] } {
  const keys = FIELDS.filter((f) => typed.has(f.key) && typed.get(f.key) !== shownValue(f, read)).map((f) => f.key);
  const clashes = FIELDS.filter(
    (f) => keys.includes(f.key) && shownValue(f, now) !== shownValue(f, read) && shownValue(f, now) !== typed.get(f.key),
  ).map((f) => f.key);
  return { keys, clashes };
}

/** The field an error is about: the backend names it in its location. */
export function fieldOf(e: unknown): string | null {
  return e instanceof ApiError && e.location?.field ? e.location.field : null;
}

/**
 * Asks before unsaved edits are dropped. "Keep editing" is focused, so Enter (or Esc)
 * keeps them; discarding is the other button, a Tab away: every letter means something
 * else in the app, and a stray key must not lose a lead's edits.
 */
function discardAsk(keep: () => void, discard: () => void): HTMLElement {
  const keepButton = h("button", { class: "primary", testid: "settings-keep", onclick: keep }, "Keep editing ", h("kbd", {}, capOf("submit")));
  const el = h(
    "div",
    { class: "settings-discard", testid: "settings-discard", role: "alertdialog", "aria-label": "Unsaved changes" },
    h("p", {}, "Your changes are not saved. Leave and discard them?"),
    h("div", { class: "inline-form" }, keepButton, h("button", { class: "danger", testid: "settings-discard-go", onclick: discard }, "Discard changes")),
  );
  queueMicrotask(() => keepButton.focus());
  return el;
}

export function settingsScreen(deps: LeadDeps, toPassword = false, onServer = false): Screen {
  let current: Settings | null = null;
  const inputs = new Map<string, Input>();
  const problems = new Map<string, HTMLElement>();
  const status = h("p", { class: "adj-notice", testid: "settings-status", role: "status" });
  const problem = h("p", { class: "error-text field-error", testid: "settings-problem", role: "alert" });
  const form = h("div", { class: "settings-form", testid: "settings-form" });

  /** Fields whose value was refused (here or by the project) and not changed since. */
  const refused = new Set<string>();
  const saveButton = h("button", { class: "primary", testid: "settings-save", onclick: () => void save() }, "Save ", h("kbd", {}, capOf("save")));

  /**
   * Save looks unavailable while a field is wrong, as the work screens' Submit does while
   * a check fails; pressing it says what is wrong, under the field.
   */
  function readiness(): void {
    const probe = current ? structuredClone(current) : null;
    const wrong =
      refused.size > 0 ||
      (probe !== null &&
        FIELDS.some((f) => {
          const el = inputs.get(f.key);
          return el ? f.read(el, probe) !== null : false;
        }));
    saveButton.classList.toggle("not-ready", wrong);
    saveButton.setAttribute("aria-disabled", String(wrong));
    saveButton.title = wrong ? "A field is not right yet: see the message under it" : "";
  }

  const notes: (() => void)[] = [];
  const rows = FIELDS.flatMap((f) => {
    const input = f.input();
    const id = `setting-${f.key.replace(".", "-")}`;
    input.id = id;
    input.removeAttribute("aria-label");
    const err = h("p", { class: "error-text field-error", testid: `setting-error-${f.key.replace(".", "-")}`, role: "alert" });
    input.addEventListener("input", () => {
      mount(err);
      refused.delete(f.key);
      readiness();
    });
    input.addEventListener("change", readiness);
    inputs.set(f.key, input);
    problems.set(f.key, err);
    const label = h("label", { class: "export-label" }, f.label);
    label.htmlFor = id;
    const { note } = f;
    const noteEl = note ? h("span", { class: "muted small export-note", testid: `setting-note-${f.key.replace(".", "-")}` }) : null;
    if (noteEl && note) {
      const refresh = (): void => mount(noteEl, typeof note === "function" ? note(input.value) : note);
      refresh();
      input.addEventListener("change", refresh);
      notes.push(refresh);
    }
    return [label, h("div", {}, input, noteEl, err)];
  });
  mount(form, ...rows);

  function clearProblems(): void {
    for (const p of problems.values()) mount(p);
    mount(problem);
  }

  const rerank = rerankPanel(onServer, deps.fail);

  function show(s: Settings): void {
    current = s;
    rerank.show(s);
    for (const f of FIELDS) {
      const el = inputs.get(f.key);
      if (el) f.show(s, el);
    }
    for (const refresh of notes) refresh();
    readiness();
  }

  const save = oneAtATime(async (): Promise<void> => {
    if (!current) return;
    clearProblems();
    mount(status);
    const next: Settings = structuredClone(current);
    let wrong = false;
    for (const f of FIELDS) {
      const el = inputs.get(f.key);
      const why = el ? f.read(el, next) : null;
      if (why) {
        wrong = true;
        refused.add(f.key);
        mount(problems.get(f.key) ?? problem, why);
      }
    }
    readiness();
    if (wrong) return;
    try {
      // Another window (or the CLI, or another lead) may have saved since this screen was
      // read: keep its changes, write only the fields changed here, and stop on a field
      // changed in both. A save landing between our read and our write is refused
      // (conflict) and the merge is made again on what it stored.
      for (let attempt = 1; ; attempt++) {
        const now = await api.settings();
        const typed = new Map([...inputs].map(([key, el]) => [key, el.value]));
        const { keys, clashes } = mergeSettings(current, now, typed);
        if (clashes.length) {
          for (const key of clashes) {
            const f = FIELDS.find((x) => x.key === key);
            if (f) mount(problems.get(key) ?? problem, `Changed in another window meanwhile, to “${shownValue(f, now)}”. Yours is still in the box: Save again to keep it.`);
          }
          // What the others changed shows; the next save writes the lead's values over them.
          current = now;
          for (const f of FIELDS) {
            const el = inputs.get(f.key);
            if (el && !keys.includes(f.key)) f.show(now, el);
          }
          return;
        }
        const merged: Settings = structuredClone(now);
        for (const f of FIELDS) {
          const el = inputs.get(f.key);
          if (el && keys.includes(f.key)) f.read(el, merged);
        }
        try {
          show(await api.saveSettings(merged, now));
          break;
        } catch (e) {
          if (!(e instanceof ApiError && e.code === "conflict" && attempt < 3)) throw e;
        }
      }
      mount(status, "Settings saved.");
    } catch (e) {
      const field = fieldOf(e);
      const at = field ? problems.get(field) : undefined;
      if (field && at) refused.add(field);
      readiness();
      // Under its field the message needs no "settings, field …" prefix: the field is right above.
      mount(at ?? problem, at && e instanceof ApiError ? sentence(e.message) : readable(e));
      (field ? inputs.get(field) : undefined)?.focus();
    }
  });

  form.addEventListener("keydown", (ev) => {
    if (isSave(ev) || ((ev.ctrlKey || ev.metaKey) && keyName(ev.key) === "s")) {
      ev.preventDefault();
      void save();
    }
  });

  // The lead's own password: on a shared machine anyone can choose any name on "Who is
  // working?", and a lead's name opens gold labels and everyone's answers (issue 36).
  const password = h("input", { class: "text-input", testid: "lead-password", type: "password", "aria-label": "Your new password" });
  const passwordSaid = h("p", { class: "adj-notice", testid: "lead-password-status", role: "status" });
  const setPassword = oneAtATime(async (): Promise<void> => {
    mount(passwordSaid);
    try {
      const me = await api.me();
      await api.setPassword(me.name, password.value);
      password.value = "";
      mount(passwordSaid, `Saved. Choosing ${me.name} on “Who is working?” now asks for it, and it signs ${me.name} in to a team server.`);
    } catch (e) {
      mount(passwordSaid, readable(e));
    }
  });
  password.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") void setPassword();
  });
  const passwordPanel = h(
    "section",
    { class: "panel settings-password", testid: "settings-password" },
    h("h3", {}, "Your password"),
    h("p", { class: "muted small" }, "Anyone at this computer can choose any name on “Who is working?”. With a password, choosing yours asks for it."),
    h("div", { class: "inline-form" }, password, h("button", { testid: "lead-password-set", onclick: () => void setPassword() }, "Set password")),
    passwordSaid,
  );

  /** Whether a field holds something not saved: its box differs from what was read. */
  function unsaved(): boolean {
    if (password.value !== "") return true;
    const read = current;
    if (!read) return false;
    return FIELDS.some((f) => {
      const box = inputs.get(f.key);
      return box !== undefined && box.value !== shownValue(f, read);
    });
  }

  const asking = h("div", { testid: "settings-asking" });
  const closeAsk = (): void => mount(asking);
  /** Home, after asking when edits would be lost. */
  function leave(): void {
    if (!unsaved()) return deps.home();
    mount(asking, discardAsk(closeAsk, () => deps.home()));
  }

  const el = h(
    "main",
    { class: "lead-screen", testid: "settings" },
    h(
      "div",
      { class: "dash-head" },
      h("div", {}, h("h1", {}, "Project settings"), h("p", { class: "muted" }, "How work is served and checked. Saved for everyone on the project.")),
      h("span", { class: "spacer" }),
      h("button", { testid: "settings-home", onclick: leave }, "Home ", h("kbd", {}, "Esc")),
    ),
    asking,
    status,
    h(
      "section",
      { class: "panel" },
      form,
      problem,
      h(
        "div",
        { class: "settings-actions" },
        saveButton,
        h("span", { class: "muted small" }, "Esc leaves a field, then the screen (asking first if anything is not saved)."),
      ),
    ),
    rerank.el,
    passwordPanel,
  );

  // Esc in a box leaves the box, not the screen: the app's keys skip text fields, and
  // leaving from there dropped the edits unasked.
  el.addEventListener("keydown", (ev) => {
    const t = ev.target;
    const inField = t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement;
    if (inField && meaningOf(ev.key) === "escape") {
      ev.preventDefault();
      t.blur();
    }
  });

  return {
    el,
    onKey(ev: KeyboardEvent): boolean {
      if (meaningOf(ev.key) !== "escape") return false;
      if (asking.firstChild) closeAsk();
      else leave();
      return true;
    },
    shown(): void {
      rerank.shown();
      api.settings().then((s) => {
        show(s);
        // Opened from the home's "no password" notice: straight to the password box.
        if (toPassword) {
          passwordPanel.scrollIntoView({ block: "center" });
          password.focus();
        }
      }, deps.fail);
    },
  };
}
