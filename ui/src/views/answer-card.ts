// One annotator's answer as the adjudication queue shows it: who, whether it counts, its
// badges, the sentences it chose whole in a box that grows into the window's spare room
// and scrolls past it (M pages every box on), or its label in words, and the comment.

import { capOf } from "../keymap";
import { h, textDirection } from "../dom";
import type { QueueItem } from "../ipc";
import { answerText, atEnd, chosenSentences, pagedOn } from "./adjudication";
import { answerRows, givenText, type Answers } from "./work/design-answers";

export function answerCard(item: QueueItem, i: number, editing: boolean): HTMLElement {
  const a = item.answers[i];
  if (!a) return h("div");
  const taken = item.decision?.taken_from === a.annotator;
  return h(
    "div",
    { class: `adj-answer${a.counted ? "" : " not-counted"}${taken ? " taken" : ""}`, testid: `adj-answer-${a.annotator}` },
    h(
      "div",
      { class: "adj-answer-head" },
      // While deciding by hand the digits toggle sentences, so only then do the
      // sentences, not the answers, show keys.
      i < 9 && a.counted && !editing ? h("kbd", {}, String(i + 1)) : null,
      h("span", { class: "adj-who" }, a.annotator),
      a.rejected
        ? h("span", { class: "badge badge-danger", testid: `adj-rejected-${a.annotator}` }, "REJECTED (picked the trick)")
        : a.counted
          ? null
          : h("span", { class: "badge badge-danger" }, "NOT COUNTED"),
      // A rejected answer's badge already says it picked the trick.
      a.trick_failed && !a.rejected ? h("span", { class: "badge badge-danger", title: "Selected the trick sentence here" }, "TRICK") : null,
      taken ? h("span", { class: "badge badge-ok" }, "TAKEN") : null,
    ),
    answerValue(a.annotator, a.answer, item),
    h("div", { class: a.comment ? "adj-comment" : "adj-comment faint", dir: "auto" }, a.comment ?? "no comment"),
  );
}

/**
 * What an answer says: the text of each sentence it chose, or its label in words. The
 * sentences are whole, in a box of at least four lines (more in a taller window, and as
 * many as the window has room for, `fitAnswers`) that scrolls past that: M pages every
 * answer on, and a focused box scrolls by the arrow keys.
 */
function answerValue(who: string, answer: QueueItem["answers"][number]["answer"], item: QueueItem): HTMLElement {
  if (answer?.kind === "design") return designValue(who, answer.answers, item);
  const chosen = chosenSentences(answer, item.candidates);
  if (!chosen || chosen.sentences.length === 0) {
    return h("div", { class: "adj-answer-value", testid: `adj-value-${who}` }, answerText(answer, item.candidates));
  }
  const list = h(
    "ol",
    // A Tab stop, so the arrow keys scroll it for someone without a mouse.
    { class: "adj-answer-value adj-answer-sentences", testid: `adj-value-${who}`, tabindex: "0", "aria-label": `${who}'s sentences` },
    ...chosen.sentences.map(({ number, text }) =>
      // The row mirrors with its sentence, so an Arabic sentence's number is on its right.
      h(
        "li",
        { dir: textDirection(text) },
        h("span", { class: "adj-num", title: `Candidate ${number}` }, String(number)),
        h("span", { class: "adj-answer-text", dir: "auto", title: text }, text),
      ),
    ),
    chosen.outside > 0 ? h("li", { class: "muted small" }, `+${chosen.outside} not shown`) : null,
  );
  // Under the box, never over its last line: the box ends between whole lines, so what
  // shows ends on a whole word. Not a key cap: the cards' caps are the digits that take an
  // answer. A click pages this box alone, as M pages them all.
  const more = h("button", { class: "ghost adj-more", testid: `adj-more-${who}`, tabindex: "-1" }, MORE);
  const box = h("div", { class: "adj-answer-box", dir: textDirection(chosen.sentences[0]?.text ?? "") }, list, more);
  more.addEventListener("click", () => {
    list.scrollTop = pagedOn([list], lineOf(list))[0] ?? 0;
    markCut(list);
  });
  list.addEventListener("scroll", () => markCut(list));
  return box;
}

const MORE = `more — ${capOf("more")}`;
const BACK = `back to the top — ${capOf("more")}`;

function lineOf(list: HTMLElement): number {
  return parseFloat(getComputedStyle(list).lineHeight) || 20;
}

/**
 * A design answer question by question, in the work screen's order and titles; a
 * question the counted answers differ on is drawn strong, one they agree on quiet, so the
 * lead sees what is split.
 */
function designValue(who: string, answers: Answers, item: QueueItem): HTMLElement {
  const counted = item.answers.flatMap((a) => (a.counted && a.answer?.kind === "design" ? [a.answer.answers] : []));
  return h(
    "ul",
    { class: "adj-answer-value adj-design", testid: `adj-value-${who}` },
    ...answerRows(answers, item.questions).map(({ id, title, given }) => {
      const split = new Set(counted.map((c) => JSON.stringify(c[id] ?? null))).size > 1;
      return h(
        "li",
        { class: split ? "split" : "agreed", title: split ? "The counted answers differ here" : "The counted answers agree here" },
        h("span", { class: "adj-design-q" }, `${title}:`),
        " ",
        h("span", { class: "adj-design-a", dir: "auto" }, givenText(given)),
      );
    }),
  );
}

/**
 * Marks a list's box: "overflows" when its sentences run past it, which keeps a line under
 * it for the "more" control (there whether or not the end is shown, so paging moves
 * nothing), and "cut" while there is more below, where the control says "more — M"; at
 * the end it says M goes back to the top.
 */
export function markCut(list: HTMLElement): void {
  const box = list.parentElement;
  if (!box) return;
  const cut = !atEnd(list);
  box.classList.toggle("overflows", list.scrollHeight > list.clientHeight + 1);
  box.classList.toggle("cut", cut);
  const more = box.querySelector(".adj-more");
  if (more) more.textContent = cut ? MORE : BACK;
}

/** A box's height and its content's, in px. */
export interface Fill {
  client: number;
  scroll: number;
}

/**
 * The heights (px) the answers' boxes grow to, so that what fits the window shows whole:
 * `room` px are spare under the fields below the cards, shared among the `rows` of
 * cards (the boxes of a row grow together), in whole lines of `line` px; a box grows no
 * further than its content, and one whose content fits already is left as it is (null).
 */
export function grownHeights(boxes: readonly Fill[], room: number, rows: number, line: number): (number | null)[] {
  const extra = rows > 0 ? Math.floor(room / rows / line) * line : 0;
  return boxes.map(({ client, scroll }) => {
    const hidden = scroll - client;
    if (hidden <= 1 || extra <= 0) return null;
    return client + Math.min(extra, Math.ceil(hidden / line) * line);
  });
}

/** Room kept under the fields, so they never sit on the window's edge. */
const MARGIN = 12;

/**
 * Grows the answers' boxes (`lists`) into the room the window has under `below` (the
 * fields under the cards) when the page is at its top: a sentence that fits is shown
 * whole, and only one that does not scrolls, with a line under it for "more". Again from
 * the stylesheet's heights each time, as the item, a notice above or the window's size
 * changes the room.
 */
export function fitAnswers(lists: readonly HTMLElement[], below: HTMLElement | null): void {
  for (const list of lists) {
    list.style.maxHeight = "";
    list.parentElement?.classList.remove("overflows", "cut");
  }
  const first = lists[0];
  if (first && below) {
    const line = lineOf(first);
    const scrolled = document.scrollingElement?.scrollTop ?? 0;
    const room = window.innerHeight - (below.getBoundingClientRect().bottom + scrolled) - MARGIN;
    const rows = new Set(lists.map((l) => Math.round((l.closest(".adj-answer") ?? l).getBoundingClientRect().top))).size;
    const sizes = lists.map((l) => ({ client: l.clientHeight, scroll: l.scrollHeight }));
    let heights = grownHeights(sizes, room, rows, line);
    // A box still cut takes a line more for its "more": each row grows a line less.
    if (heights.some((height, i) => (height ?? sizes[i]?.client ?? 0) < (sizes[i]?.scroll ?? 0) - 1)) {
      heights = grownHeights(sizes, room - rows * line, rows, line);
    }
    heights.forEach((height, i) => {
      const list = lists[i];
      if (list && height !== null) list.style.maxHeight = `${height}px`;
    });
  }
  lists.forEach(markCut);
}
