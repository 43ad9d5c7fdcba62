// Home after signing in: the kinds of work with this person's progress on each, and for
// a lead, the lead's panel underneath.

import { h, mount } from "../dom";
import { api, type Manifest, type Overview, type Pace, type Person, type TaskKind } from "../ipc";
import { progressText } from "../progress";
import { leadPanel } from "./lead";
import { returnPanel } from "./packs";
import type { Screen } from "./screen";
import { KIND_TITLES } from "./work/chrome";

export const KINDS: TaskKind[] = ["evidence", "refute", "verify", "label", "design"];

const ABOUT: Record<TaskKind, string> = {
  evidence: "Pick the sentences that are evidence for a claim, as its guideline says.",
  refute: "Rewrite a short claim so that it becomes false.",
  verify: "Judge whether a new claim contradicts its original.",
  label: "Label a claim as supported, refuted or not enough info.",
  design: "Answer the project's own questions about a text or a pair of texts.",
};

/** Kinds shown only where the project has such work: a design is a project's own choice. */
const ONLY_WITH_WORK: ReadonlySet<TaskKind> = new Set(["design"]);

export interface HomeDeps {
  work: (kind: TaskKind) => void;
  fail: (e: unknown) => void;
  /** The project changed (tasks, people): refresh what the shell shows. */
  changed: (o: Overview) => void;
  /** Leads: open the live agreement dashboard. */
  dashboard?: () => void;
  /** Set when the open file is a pack: no lead panel, and "Return results". */
  pack?: Manifest;
  /** Leads: open the adjudication queue. */
  adjudicate?: () => void;
  /** Leads: open the gold export. */
  exportGold?: () => void;
  /** Leads: open one of the lead's own screens. */
  lead?: (screen: LeadScreen) => void;
  /** Leads: open the list of claims. */
  claims?: () => void;
}

/** The lead's screens reached from home; "password" is the settings opened on the lead's password. */
export type LeadScreen = "review" | "settings" | "flags" | "issue" | "password";

/** The kind a digit key opens (1 is evidence), or null. */
export function kindForKey(key: string): TaskKind | null {
  return /^[1-9]$/.test(key) ? (KINDS[Number(key) - 1] ?? null) : null;
}

function kindCard(kind: TaskKind, i: number, deps: HomeDeps): { el: HTMLElement; progress: HTMLElement } {
  const progress = h("span", { class: "kind-progress", testid: `kind-progress-${kind}` }, "…");
  const el = h(
    "button",
    { class: "kind-card", testid: `kind-${kind}`, onclick: () => deps.work(kind) },
    h("span", { class: "kind-top" }, h("span", { class: "kind-title" }, KIND_TITLES[kind]), h("kbd", {}, String(i + 1))),
    h("span", { class: "kind-about" }, ABOUT[kind]),
    progress,
  );
  return { el, progress };
}

function showProgress(kind: TaskKind, into: HTMLElement, pace: Pace | null): void {
  const bar = h("progress", { class: "progress-bar" });
  if (pace && !pace.more) {
    bar.max = Math.max(pace.total, 1);
    bar.value = Math.min(pace.done, bar.max);
  }
  mount(into, pace && !pace.more ? bar : null, h("span", { testid: `kind-done-${kind}` }, progressText(pace)));
}

/**
 * A lead with no password is one choice away for anyone at this computer: said on their
 * home, with the way to the password, but not in their way (issue 36).
 */
export function openLeadNotice(person: Person, deps: HomeDeps): HTMLElement | null {
  if (person.role !== "lead" || person.has_password || deps.pack || !deps.lead) return null;
  return h(
    "p",
    { class: "open-lead-notice", testid: "open-lead-notice", role: "note" },
    "You have no password: anyone at this computer can open this lead's view from “Who is working?”. ",
    h("button", { class: "ghost open-lead-set", testid: "open-lead-set-password", onclick: () => deps.lead?.("password") }, "Set a password"),
  );
}

export function homeScreen(o: Overview, person: Person, deps: HomeDeps): Screen {
  const cards = KINDS.map((k, i) => kindCard(k, i, deps));
  const lead = person.role === "lead" && !deps.pack ? leadPanel(o, deps) : null;
  // A pack's kinds of work only: the others' cards said "Nothing to do yet". Hidden at
  // once for a pack of one kind, and by its counts once they come (see shown).
  const packKind = deps.pack?.kind ?? null;
  KINDS.forEach((k, i) => {
    const card = cards[i];
    if (card) card.el.hidden = (packKind !== null && k !== packKind) || (packKind !== k && ONLY_WITH_WORK.has(k));
  });
  return {
    el: h(
      "main",
      { class: "home", testid: "home" },
      h(
        "div",
        { class: "home-head" },
        h("h1", {}, `Hello, ${person.name}`),
        h("p", { class: "muted" }, lead ? "Your project first; your own work, by its number, below." : "Choose the work to do. Press its number, or click it."),
        lead ? openLeadNotice(person, deps) : null,
      ),
      // A lead opens on the project, an annotator on their work; a pack's way back (Return
      // results) sits right under its work, never below empty cards.
      lead?.el,
      lead ? h("h2", { class: "section-title" }, "Your own work") : null,
      h("section", { class: "kinds" }, ...cards.map((c) => c.el)),
      deps.pack ? returnPanel(deps.pack, deps.fail) : null,
    ),
    appKeys: true,
    onKey(ev: KeyboardEvent): boolean {
      if (lead?.onKey(ev)) return true;
      const kind = kindForKey(ev.key);
      if (!kind || cards[KINDS.indexOf(kind)]?.el.hidden) return false;
      deps.work(kind);
      return true;
    },
    shown(): void {
      api
        .paces()
        .then((paces) => {
          for (const [i, kind] of KINDS.entries()) {
            const card = cards[i];
            const pace = paces.find((p) => p.kind === kind)?.pace ?? null;
            if (card) showProgress(kind, card.progress, pace);
            // A pack counts its own items: a kind it holds none of is no work here; nor is
            // a design in a project without design tasks for this person.
            if (card && (deps.pack || ONLY_WITH_WORK.has(kind))) card.el.hidden = !pace || (pace.total === 0 && !pace.more);
          }
        })
        .catch(deps.fail);
      lead?.load();
    },
  };
}
