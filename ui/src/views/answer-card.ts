// One annotator's answer as the adjudication queue shows it: who, whether it counts, its
// badges, the sentences it chose whole in a box that scrolls (M pages every box on), or
// its label in words, and the comment.

import { capOf } from "../keymap";
import { h, textDirection } from "../dom";
import type { QueueItem } from "../ipc";
import { answerText, atEnd, chosenSentences } from "./adjudication";
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
 * sentences are whole, in a box that shows four lines (more in a taller window) and
 * scrolls: M pages every answer on, and a focused box scrolls by the arrow keys.
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
  // Not a key cap: the cards' caps are the digits that take an answer. At the end of
  // the last line, which is on the left under a right-to-left first sentence.
  const more = h("span", { class: "adj-more", dir: "ltr", "aria-hidden": "true" }, `more — ${capOf("more")}`);
  const box = h("div", { class: "adj-answer-box", dir: textDirection(chosen.sentences[0]?.text ?? "") }, list, more);
  list.addEventListener("scroll", () => markCut(list));
  return box;
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

/** Marks a list with more below its last line shown: it fades there, and says "more — M". */
export function markCut(list: HTMLElement): void {
  list.parentElement?.classList.toggle("cut", !atEnd(list));
}
