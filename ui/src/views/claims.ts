// The data manager: one claim (opened from a search hit or the list), a sentence hit,
// and the lead's filterable list of claims. What a claim shows is the api's decision: a
// lead gets every answer, the label, candidates and documents; an annotator the claim,
// its tasks and their own answers. Lists move with ↑/↓ (or J/K) and open with Enter.

import { meaningOf } from "../keymap";
import { h, mount } from "../dom";
import { errorText } from "../errors";
import { claimNumber, plural } from "../format";
import { ApiError, api, type ClaimLine, type ClaimStanding, type ClaimTask, type ClaimView, type SearchHit } from "../ipc";
import type { Screen } from "./screen";
import { KIND_TITLES } from "./work/chrome";
import { passageText } from "./work/passage";

export interface ClaimDeps {
  /** Back to where the claim was opened from. */
  back: () => void;
  fail: (e: unknown) => void;
}

function head(title: HTMLElement | string, sub: HTMLElement | string, back: () => void): HTMLElement {
  return h(
    "div",
    { class: "dash-head" },
    h("div", {}, h("h1", {}, title), h("p", { class: "muted" }, sub)),
    h("span", { class: "spacer" }),
    h("button", { testid: "claim-back", onclick: back }, "Back ", h("kbd", {}, "Esc")),
  );
}

/** How a task stands: for a lead, its counted answers; for an annotator, only whether they
 * answered it (others' answers are not theirs). The claim's number names the page, and
 * the kind the task: no second number (a task's id is in the lead's tooltip). */
export function taskState(t: ClaimTask, full: boolean): string {
  if (!full) return t.answered > 0 ? "answered by you" : "not answered by you";
  return t.closed ? "closed" : `${t.answered} of ${t.overlap} counted ${t.overlap === 1 ? "answer" : "answers"}`;
}

function taskView(t: ClaimTask, full: boolean): HTMLElement {
  return h(
    "section",
    { class: "panel claim-task", testid: `claim-task-${t.kind}` },
    h(
      "div",
      { class: "claim-task-head" },
      h("span", { class: "badge badge-info" }, KIND_TITLES[t.kind]),
      h("span", { class: "muted small", testid: "claim-task-state", title: full ? `task ${t.task_id}` : undefined }, taskState(t, full)),
    ),
    t.answers.length === 0
      ? h("p", { class: "muted small", testid: "claim-no-answers" }, full ? "No answers yet." : "You have not answered it.")
      : h(
          "ul",
          { class: "claim-answers" },
          ...t.answers.map((a) =>
            h(
              "li",
              { class: "claim-answer", testid: `claim-answer-${a.annotator}` },
              h("span", { class: "adj-who" }, full ? a.annotator : "Your answer"),
              h("span", { class: "claim-answer-value", dir: "auto" }, a.summary),
              a.trick_failed ? h("span", { class: "badge badge-danger" }, "PICKED THE TRICK") : null,
              a.comment ? h("span", { class: "adj-comment", dir: "auto" }, a.comment) : null,
            ),
          ),
        ),
  );
}

/** The lead's "in document": the candidate among its neighbours, under the list. */
function showInDocument(into: HTMLElement, sentenceId: number, number: number): void {
  mount(into, h("p", { class: "muted" }, "Loading…"));
  api.sentencePassage(sentenceId).then(
    (p) =>
      mount(
        into,
        h("h2", {}, `Candidate ${number} in its document`),
        p.title ? h("div", { class: "passage-title" }, p.title) : null,
        passageText(p),
      ),
    (e: unknown) => mount(into, h("p", { class: "error-text" }, errorText(e))),
  );
}

function claimBody(c: ClaimView): HTMLElement[] {
  const passage = h("div", { class: "claim-passage", testid: "claim-passage" });
  const facts = [
    c.parent !== null && c.parent_reference !== null ? `refutation of ${c.parent_reference} (${c.parent})` : null,
    c.full ? (c.label ? `imported label ${c.label}` : "no imported label") : null,
    c.full && c.documents.length ? `${plural(c.documents.length, "document")}: ${c.documents.join(", ")}` : null,
  ].filter((f): f is string => f !== null);
  return [
    h(
      "section",
      { class: "panel claim-card" },
      h("p", { class: "claim", testid: "claim-text", dir: "auto" }, c.text),
      c.context ? h("p", { class: "claim-context muted", dir: "auto" }, c.context) : null,
      facts.length ? h("p", { class: "muted small", testid: "claim-facts" }, facts.join(" · ")) : null,
      c.full ? null : h("p", { class: "muted small", testid: "claim-own-only" }, "You see your own answers only; the candidates and other people's answers are the lead's."),
    ),
    c.full && c.candidates.length
      ? h(
          "section",
          { class: "panel" },
          h("h2", {}, "Candidates, in rank order"),
          h(
            "ol",
            { class: "claim-candidates", testid: "claim-candidates" },
            ...c.candidates.map((s, i) =>
              h(
                "li",
                {},
                h("span", { dir: "auto" }, s.text),
                h("span", { class: "faint small" }, ` from ${s.document_id}`),
                // Which rankers' own top five held it: the lead's view only (see ClaimView). The
                // separator is its own text, so the number and "placed by" never run together.
                c.candidate_rankers[i]?.length ? h("span", { class: "faint small" }, " · ") : null,
                c.candidate_rankers[i]?.length
                  ? h("span", { class: "faint small", testid: `claim-placed-${i + 1}` }, `placed by ${c.candidate_rankers[i].join(", ")}`)
                  : null,
                " ",
                h(
                  "button",
                  { class: "ghost small", testid: `claim-show-${i + 1}`, onclick: () => showInDocument(passage, s.sentence_id, i + 1) },
                  "in document",
                ),
              ),
            ),
          ),
          passage,
        )
      : null,
    ...(c.tasks.length ? c.tasks.map((t) => taskView(t, c.full)) : [h("p", { class: "muted", testid: "claim-no-tasks" }, "No tasks for this claim.")]),
  ].filter((e): e is HTMLElement => e !== null);
}

/**
 * One claim, as the api lets the person see it, opened by its reference: a lead's "#12",
 * an annotator's own opaque one (an annotator is shown no number: it follows import order,
 * and a refutation comes after its original).
 */
export function claimScreen(reference: string, deps: ClaimDeps): Screen {
  const title = h("span", { testid: "claim-ext-id" }, "…");
  // A lead's claim by its number; an annotator's reference is a long opaque id that tells
  // them nothing, kept on the element only.
  const heading = reference.startsWith("#")
    ? h("span", {}, "Claim ", h("span", { class: "claim-number", testid: "claim-number" }, reference))
    : h("span", {}, "A claim you answered", h("span", { testid: "claim-number", "data-reference": reference }));
  const body = h("div", { class: "claim-body" }, h("p", { class: "muted" }, "Loading…"));
  const el = h("main", { class: "claim-page", testid: "claim-screen" }, head(heading, title, deps.back), body);
  return {
    el,
    onKey(ev) {
      if (meaningOf(ev.key) !== "escape") return false;
      deps.back();
      return true;
    },
    shown() {
      api.claimView(reference).then(
        (c) => {
          // An annotator is shown no imported id (it would tell a refutation's kind).
          mount(title, c.ext_id ? `imported as ${c.ext_id}` : "");
          mount(body, ...claimBody(c));
        },
        (e: unknown) => mount(body, h("p", { class: "error-text" }, errorText(e))),
      );
    },
  };
}

/**
 * A sentence found by search, among its neighbours when the api allows it (a lead's),
 * else as it was found: the screen asks, and the api decides.
 */
export function sentenceScreen(hit: SearchHit, deps: ClaimDeps): Screen {
  const body = h("section", { class: "panel passage-page", testid: "sentence-passage" }, h("p", { dir: "auto" }, hit.text));
  const el = h("main", { class: "claim-page", testid: "sentence-screen" }, head("Sentence", `In document ${hit.ext_id}`, deps.back), body);
  return {
    el,
    onKey(ev) {
      if (meaningOf(ev.key) !== "escape") return false;
      deps.back();
      return true;
    },
    shown() {
      api.sentencePassage(hit.id).then(
        (p) => mount(body, p.title ? h("div", { class: "passage-title" }, p.title) : null, passageText(p)),
        (e: unknown) => {
          if (!(e instanceof ApiError && e.code === "forbidden")) deps.fail(e);
        },
      );
    },
  };
}

export interface ClaimsDeps {
  home: () => void;
  /** Opens a claim by its reference ("#12"). */
  open: (reference: string) => void;
  fail: (e: unknown) => void;
}

const STANDINGS: [ClaimStanding, string][] = [
  ["any", "All claims"],
  ["open", "Still wanting answers"],
  ["complete", "All answers in"],
  ["no_tasks", "Without tasks"],
];

const PAGE = 100;

/** Where the list was, so coming back from a claim finds it as it was left. */
export interface ClaimsState {
  words: string;
  standing: ClaimStanding;
  offset: number;
  at: number;
}

export function newClaimsState(): ClaimsState {
  return { words: "", standing: "any", offset: 0, at: 0 };
}

/** The lead's list of claims, filtered by words (number, own id or text) and by standing. */
export function claimsScreen(state: ClaimsState, deps: ClaimsDeps): Screen {
  let lines: ClaimLine[] = [];
  let total = 0;
  const words = h("input", {
    class: "text-input",
    testid: "claims-filter",
    type: "search",
    placeholder: "Filter by #number, id or words",
    "aria-label": "Filter claims by number, id or words",
    dir: "auto",
  });
  words.value = state.words;
  const standing = h("select", { class: "text-input", testid: "claims-standing", "aria-label": "Which claims" });
  for (const [value, label] of STANDINGS) {
    const o = h("option", {}, label);
    o.value = value;
    standing.append(o);
  }
  standing.value = state.standing;
  const count = h("span", { testid: "claims-count" });
  const list = h("ul", { class: "claims-list", role: "listbox", "aria-label": "Claims", testid: "claims-list" });
  const more = h("div", { class: "claims-more" });
  const el = h(
    "main",
    { class: "claim-page", testid: "claims-screen" },
    h(
      "div",
      { class: "dash-head" },
      h("div", {}, h("h1", {}, "Claims"), h("p", { class: "muted" }, count)),
      h("span", { class: "spacer" }),
      h("button", { testid: "claims-home", onclick: deps.home }, "Home ", h("kbd", {}, "Esc")),
    ),
    h("div", { class: "claims-filters" }, words, standing),
    h("section", { class: "panel" }, list, more),
  );

  function row(line: ClaimLine, i: number): HTMLElement {
    const r = h(
      "li",
      {
        class: `claims-row${i === state.at ? " current" : ""}`,
        testid: `claims-row-${line.ext_id}`,
        role: "option",
        "aria-selected": String(i === state.at),
        onclick: () => {
          state.at = i;
          deps.open(claimNumber(line.id));
        },
      },
      h("span", { class: "claim-number claims-number", testid: "claims-number" }, claimNumber(line.id)),
      h("span", { class: "claims-id" }, line.ext_id),
      h("span", { class: "claims-text", dir: "auto" }, line.text),
      h(
        "span",
        { class: "muted small claims-answers" },
        line.tasks === 0 ? "no tasks" : `${line.answered} of ${line.wanted} answers`,
        line.is_refutation ? " · refutation" : "",
      ),
    );
    return r;
  }

  function draw(): void {
    mount(count, total === 0 ? "No claims match." : `${plural(total, "claim")}${total > lines.length ? `, ${state.offset + 1}–${state.offset + lines.length} shown` : ""} · ↑ ↓ to move, Enter opens, F filters`);
    mount(list, ...lines.map(row));
    mount(
      more,
      state.offset > 0 ? h("button", { testid: "claims-prev", onclick: () => void page(-PAGE) }, "Previous page") : null,
      state.offset + lines.length < total ? h("button", { testid: "claims-next", onclick: () => void page(PAGE) }, "Next page") : null,
    );
    list.querySelector(".current")?.scrollIntoView({ block: "nearest" });
  }

  async function load(): Promise<void> {
    try {
      const p = await api.claimsList(state.words.trim() || null, state.standing, state.offset, PAGE);
      lines = p.lines;
      total = Number(p.total);
      state.at = Math.min(state.at, Math.max(lines.length - 1, 0));
      draw();
    } catch (e) {
      deps.fail(e);
    }
  }

  async function page(delta: number): Promise<void> {
    state.offset = Math.max(0, state.offset + delta);
    state.at = 0;
    await load();
  }

  function refilter(): void {
    state.words = words.value;
    state.standing = standing.value as ClaimStanding;
    state.offset = 0;
    state.at = 0;
    void load();
  }

  let typing = 0;
  words.addEventListener("input", () => {
    window.clearTimeout(typing);
    typing = window.setTimeout(refilter, 200);
  });
  words.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === "ArrowDown" || ev.key === "Escape") {
      ev.preventDefault();
      window.clearTimeout(typing);
      if (ev.key === "Enter") refilter();
      words.blur();
    }
  });
  standing.addEventListener("change", refilter);

  function go(i: number): void {
    if (lines.length === 0) return;
    state.at = Math.max(0, Math.min(i, lines.length - 1));
    draw();
  }

  return {
    el,
    onKey(ev) {
      const meaning = meaningOf(ev.key);
      if (meaning === "next") go(state.at + 1);
      else if (meaning === "back") go(state.at - 1);
      else if (meaning === "submit") {
        const line = lines[state.at];
        if (line) deps.open(claimNumber(line.id));
      } else if (meaning === "find") {
        ev.preventDefault();
        words.focus();
        words.select();
      } else if (meaning === "escape") deps.home();
      else return false;
      return true;
    },
    shown() {
      void load();
    },
  };
}
