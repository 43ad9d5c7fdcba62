// Pieces every work screen shares: the claim, the progress bar, the list of keys.

import { h, mount, textDirection, type Child } from "../../dom";
import { capOf } from "../../keymap";
import { count, minutes } from "../../format";
import type { Item, Pace, TaskKind, TextPiece } from "../../ipc";
import { progressParts } from "../../progress";
import { keyHelp } from "./keys";

export const KIND_TITLES: Record<TaskKind, string> = {
  evidence: "Evidence",
  refute: "Refute",
  verify: "Verify",
  label: "Label",
  // A project's own questions: the Item carries no design name, so a neutral one.
  design: "Questions",
};

/** Text with the words it shares with the claim marked, all as text nodes. */
export function pieces(parts: TextPiece[]): Child[] {
  return parts.map((p) => (p.hit ? h("mark", { class: "hit" }, p.text) : p.text));
}

/** A context longer than this starts folded, so the candidates stay on screen. */
export const LONG_CONTEXT = 160;

/**
 * A claim longer than this may be taller than its box (a third of the window), where it
 * scrolls so the candidates stay in view; it is then a Tab stop, so the arrow keys can
 * scroll it without a mouse.
 */
export const LONG_CLAIM = 300;

/** A claim's paragraph on a work screen; a long one scrolls inside its box. */
export function claimText(text: string, testid: string, children: Child[]): HTMLElement {
  const long = text.length > LONG_CLAIM;
  return h(
    "p",
    { class: "claim", testid, dir: "auto", ...(long ? { tabindex: "0", role: "region", "aria-label": "Claim" } : {}) },
    ...children,
  );
}

/** Whether the context starts open: the annotator's last choice, else open when short. */
export function contextStartsOpen(context: string, choice: boolean | null): boolean {
  return choice ?? context.length <= LONG_CONTEXT;
}

/**
 * The claim, big, with its context folded underneath; `open` says how it starts. `claim`
 * replaces the plain claim text (verification marks the words that differ).
 */
export function claimCard(
  label: string,
  item: Item,
  open: boolean,
  onToggle: (open: boolean) => void,
  claim: Child[] = [item.claim],
): { el: HTMLElement; toggle: () => void } {
  const details = item.context
    ? h(
        "details",
        { class: "context", testid: "item-context" },
        h(
          "summary",
          {},
          h("span", { class: "context-title" }, "Context ", h("kbd", {}, "X")),
          h("span", { class: "context-preview", dir: "auto", "aria-hidden": "true" }, item.context),
        ),
        // A long context scrolls inside its box, so the box is a Tab stop: the arrow keys
        // scroll it for someone without a mouse.
        h("p", { dir: "auto", tabindex: "0", role: "region", "aria-label": "Context" }, item.context),
      )
    : null;
  if (details) {
    details.open = open;
    // Only a change is the annotator's choice: setting `open` above fires a "toggle" of
    // its own later, which recorded a short context's open state as chosen and opened
    // the next, long context (pushing its candidates under the action bar).
    let shown = open;
    details.addEventListener("toggle", () => {
      if (details.open === shown) return;
      shown = details.open;
      onToggle(shown);
    });
  }
  const el = h(
    "section",
    { class: "claim-card" },
    h("div", { class: "claim-label" }, label),
    claimText(item.claim, "item-claim", claim),
    details,
  );
  return {
    el,
    toggle: () => {
      if (details) details.open = !details.open;
    },
  };
}

/** The guideline on a work screen, and how to show it whole or cut again. */
export interface GuidelineView {
  el: HTMLElement;
  /** Whole, or back to one line where the layout cuts it (M, or its button). */
  toggle: () => void;
  /** Notes whether the layout cuts it now, which shows its button. */
  measure: () => void;
}

/**
 * The guideline under the claim. Beside the passage in a short window it is one line, cut,
 * so every candidate stays above the action bar at 1024×640 (work.css); then a "more"
 * button at its end, or M, shows it whole (and again, one line). Each item starts cut.
 */
export function guidelines(text: string): GuidelineView | null {
  if (!text) return null;
  const words = h("span", { class: "guidelines-text", dir: "auto", title: text }, text);
  const button = h(
    "button",
    { class: "ghost guidelines-more", testid: "guidelines-more", type: "button", dir: "ltr", title: "The whole guideline (M)", "aria-expanded": "false", onclick: () => toggle() },
    "more",
    h("kbd", {}, capOf("more")),
  );
  // The row mirrors with the text: a right-to-left guideline's button is on its left.
  const el = h("p", { class: "guidelines", testid: "guidelines", dir: textDirection(text) }, words, button);
  const toggle = (): void => {
    // Only where the layout cuts it: elsewhere it is whole already, and M changes nothing.
    if (!el.classList.contains("cut") && !el.classList.contains("whole")) return;
    const whole = !el.classList.contains("whole");
    el.classList.toggle("whole", whole);
    button.setAttribute("aria-expanded", String(whole));
    mount(button, whole ? "less" : "more", h("kbd", {}, capOf("more")));
  };
  const measure = (): void => {
    el.classList.toggle("cut", words.scrollWidth > words.clientWidth + 1);
  };
  return { el, toggle, measure };
}

/** The progress in the words every screen uses (`progress.ts`), a bar while the items
 * left are counted, and the pace when there is one. */
export function progressView(pace: Pace | null): HTMLElement {
  if (!pace) return h("div", { class: "progress", testid: "progress" });
  const bar = pace.more ? null : h("progress", { class: "progress-bar", "aria-label": "Items done" });
  if (bar) {
    bar.max = Math.max(pace.total, 1);
    bar.value = Math.min(pace.done, bar.max);
  }
  const rate =
    pace.per_hour !== null
      ? h(
          "span",
          { class: "progress-rate", testid: "progress-rate" },
          `${count(Math.round(pace.per_hour))} per hour`,
          pace.minutes_left !== null && pace.done < pace.total ? ` · ${minutes(pace.minutes_left)} left` : null,
        )
      : null;
  const counted = progressParts(pace).map((p) => (p.figure ? h("span", { testid: `progress-${p.figure}` }, p.text) : p.text));
  return h("div", { class: "progress", testid: "progress" }, bar, h("span", { class: "progress-count" }, ...counted), rate);
}

/**
 * The list of keys for this kind of item, shown by "?", and the item's guideline whole: in
 * a short window with the passage open the guideline on screen is one line, cut.
 */
export function helpView(kind: TaskKind, optionCount: number, close: () => void, guideline = ""): HTMLElement {
  return h(
    "div",
    { class: "help-backdrop", onclick: (ev) => ev.target === ev.currentTarget && close() },
    h(
      "section",
      { class: "help", role: "dialog", "aria-label": "Keys", testid: "keys-help" },
      h("h2", {}, `Keys — ${KIND_TITLES[kind]}`),
      h(
        "dl",
        {},
        ...keyHelp(kind, optionCount).flatMap(([keys, what]) => [h("dt", {}, h("kbd", {}, keys)), h("dd", {}, what)]),
      ),
      guideline ? h("div", { class: "help-guideline", testid: "help-guideline" }, h("h3", {}, "Guideline"), h("p", { dir: "auto" }, guideline)) : null,
      h("button", { class: "ghost", onclick: close }, "Close ", h("kbd", {}, "Esc")),
    ),
  );
}
