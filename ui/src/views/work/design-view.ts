// The parts of a design item's page: the texts it shows (a pair side by side, or a claim
// alone) and one block per question (a row of labels, toggles, the words of a text to
// mark, or a box to write in). Each block only draws; the body (design.ts) holds the
// answers and the keys.

import { capOf } from "../../keymap";
import { h, mount, textDirection } from "../../dom";
import type { Item, Question } from "../../ipc";
import { questionTitle } from "./design-answers";
import type { Piece } from "./words";

/** A text longer than this may be taller than its box, where it scrolls. */
const LONG_TEXT = 240;

/** The texts a design item shows: two, labelled, side by side (stacked in a narrow window), or one. */
export function designTexts(item: Item): HTMLElement {
  const text = (label: string, body: string, testid: string): HTMLElement =>
    h(
      "div",
      { class: "pair-text" },
      h("div", { class: "claim-label" }, label),
      // A long text scrolls in its box, which is then a Tab stop, so the arrow keys
      // scroll it without a mouse.
      h(
        "p",
        { class: "claim pair-claim", testid, dir: "auto", ...(body.length > LONG_TEXT ? { tabindex: "0", role: "region", "aria-label": label } : {}) },
        body,
      ),
    );
  if (item.shows === "pair" && item.text_b !== null) {
    return h(
      "section",
      // The pair reads in the first text's direction: in a Hebrew or Arabic pair the
      // first text is on the right.
      { class: "claim-card pair-card", testid: "design-pair", dir: textDirection(item.claim) },
      text("First text", item.claim, "item-claim"),
      text("Second text", item.text_b, "item-text-b"),
    );
  }
  return h("section", { class: "claim-card", testid: "design-claim" }, text("Text", item.claim, "item-claim"));
}

/** Keys drawn in a question's head while it is the current one. */
function keyHint(...parts: (string | HTMLElement)[]): HTMLElement {
  return h("span", { class: "dq-keys", "aria-hidden": "true" }, ...parts);
}

/** The head every question block starts with: its name, whether it must be answered, its keys. */
function questionHead(q: Question, keys: HTMLElement): HTMLElement {
  return h(
    "div",
    { class: "dq-head" },
    h("h2", { class: "dq-title", id: `dq-title-${q.id}` }, questionTitle(q)),
    h("span", { class: q.required ? "dq-need" : "dq-need optional" }, q.required ? "required" : "optional"),
    keys,
  );
}

/** A question's block: its head, its guideline, and what answers it. */
export function questionBlock(q: Question, answer: HTMLElement, keys: HTMLElement, onPick: () => void): HTMLElement {
  const block = h(
    "section",
    { class: `dq dq-${q.type}`, testid: `dq-${q.id}`, "data-type": q.type, role: "group", "aria-labelledby": `dq-title-${q.id}` },
    questionHead(q, keys),
    q.guideline ? h("p", { class: "dq-guide", dir: "auto" }, q.guideline) : null,
    answer,
  );
  block.addEventListener("focusin", onPick);
  block.addEventListener("mousedown", onPick);
  return block;
}

/** The labels of a choice or multiple-choice question as numbered buttons. */
export function labelButtons(q: Question, onPress: (i: number) => void): HTMLButtonElement[] {
  return (q.labels ?? []).map((label, i) =>
    h(
      "button",
      { class: "choice dq-choice", testid: `dq-${q.id}-${i + 1}`, "data-value": label, title: label, onclick: () => onPress(i) },
      i < 9 ? h("span", { class: "option-key", "aria-hidden": "true" }, String(i + 1)) : null,
      h("span", { class: "dq-label", dir: "auto" }, label),
    ),
  );
}

/** The keys a question takes, drawn in its head; with `others`, the keys to the other questions too. */
export function questionKeys(q: Question, others = false): HTMLElement {
  const n = q.labels?.length ?? 0;
  const range = n > 1 ? `1–${Math.min(n, 9)}` : "1";
  const own = (): (string | HTMLElement)[] => {
    switch (q.type) {
      case "choice":
        return [h("kbd", {}, range), " choose"];
      case "multi":
        return [h("kbd", {}, range), " toggle ", h("kbd", {}, capOf("none")), " none"];
      case "span":
        return [h("kbd", {}, capOf("word-back")), h("kbd", {}, capOf("word-next")), " word ", h("kbd", {}, capOf("select")), " mark"];
      case "text":
        return [h("kbd", {}, capOf("write")), " write"];
    }
  };
  const moves = others ? [h("span", { class: "dq-keys-sep" }, "·"), h("kbd", {}, capOf("back")), h("kbd", {}, capOf("next")), " question"] : [];
  return keyHint(...own(), ...moves);
}

/** "None of these" for a multiple-choice question (0). */
export function noneButton(q: Question, onPress: () => void): HTMLButtonElement {
  return h(
    "button",
    { class: "choice dq-choice dq-none", testid: `dq-${q.id}-none`, title: "None of these labels applies", onclick: onPress },
    h("span", { class: "option-key", "aria-hidden": "true" }, "0"),
    h("span", { class: "dq-label" }, "None of these"),
  );
}

/** A span question's text as its words, each a target for the cursor, Space and the mouse. */
export function wordsLine(q: Question, text: string, pieces: Piece[], onWord: (i: number) => void): { el: HTMLElement; words: HTMLElement[]; gaps: (HTMLElement | null)[] } {
  const words: HTMLElement[] = [];
  const gaps: (HTMLElement | null)[] = [];
  const nodes = pieces.map((p) => {
    if (p.word === null) {
      const gap = h("span", { class: "gap" }, p.text);
      gaps.push(gap);
      return gap;
    }
    const i = p.word;
    const word = h("span", { class: "word", testid: `dq-${q.id}-word-${i + 1}`, onclick: () => onWord(i) }, p.text);
    words.push(word);
    gaps.push(null);
    return word;
  });
  const el = h("p", { class: "dq-words", dir: textDirection(text), testid: `dq-${q.id}-words` }, ...nodes);
  return { el, words, gaps };
}

/** What a span question has marked, in words, read out as it changes. */
export function markedLine(el: HTMLElement, marked: string[]): void {
  if (marked.length === 0) mount(el, h("span", { class: "faint" }, "No word marked yet."));
  else mount(el, "Marked: ", ...marked.flatMap((m, i) => [i > 0 ? ", " : "", h("bdi", { class: "dq-marked-span" }, m)]));
}

/** A text question's box. */
export function textBox(q: Question, onInput: (text: string) => void): HTMLTextAreaElement {
  const box = h("textarea", {
    class: "refute-input dq-text",
    testid: `dq-${q.id}-text`,
    dir: "auto",
    "aria-labelledby": `dq-title-${q.id}`,
    placeholder: `Write here (${capOf("write")}); ${capOf("save")} submits, ${capOf("escape")} leaves the box`,
  });
  box.rows = 2;
  box.maxLength = 10_000;
  box.addEventListener("input", () => onInput(box.value));
  return box;
}
