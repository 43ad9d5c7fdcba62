// A project's own design: the questions it declares, one block each under the texts, the
// current one ringed. ↑/↓ (J/K) move between questions; the digits answer the current
// one (a label, or a toggle of a multiple choice, 0 for none of them); on a span question
// ←/→ move the word cursor and Space marks the word; W writes in a text question.

import { h, textDirection } from "../../dom";
import type { Item, Question } from "../../ipc";
import type { BodyHooks, Draft, ItemBody } from "./body";
import {
  askedQuestions,
  blockedText,
  choose,
  missing,
  noneOf,
  restored,
  toSubmit,
  toggleLabel,
  withSpans,
  withText,
  type Answers,
} from "./design-answers";
import { labelButtons, markedLine, noneButton, questionBlock, questionKeys, textBox, wordsLine } from "./design-view";
import type { WorkDraft } from "./draft";
import type { KeyAction } from "./keys";
import { marksFrom, moveWord, spansOf, spanText, toggleMark, tokenise } from "./words";

/** One question on screen: what it draws, and the keys it takes while it is the current one. */
interface Control {
  el: HTMLElement;
  /** How many labels the digits address. */
  count: number;
  paint(current: boolean): void;
  act(action: KeyAction): boolean;
  focus?(): void;
}

/** What a question's control may ask of the body. */
interface Ctx {
  get: () => Answers;
  set: (next: Answers) => void;
  pick: () => void;
  /** Whether the item asks other questions, which ↑/↓ reach. */
  others: boolean;
}

function choiceControl(q: Question, ctx: Ctx): Control {
  const multi = q.type === "multi";
  const press = (i: number): void => {
    ctx.pick();
    ctx.set(multi ? toggleLabel(ctx.get(), q, i) : choose(ctx.get(), q, i));
  };
  const buttons = labelButtons(q, press);
  const none = multi
    ? noneButton(q, () => {
        ctx.pick();
        ctx.set(noneOf(ctx.get(), q));
      })
    : null;
  const row = h("div", { class: "choices dq-choices", role: "group", "aria-labelledby": `dq-title-${q.id}` }, ...buttons, none);
  const el = questionBlock(q, row, questionKeys(q, ctx.others), ctx.pick);
  return {
    el,
    count: Math.min(buttons.length, 9),
    paint(): void {
      const given = ctx.get()[q.id];
      buttons.forEach((b, i) => {
        const label = q.labels?.[i];
        const on = label !== undefined && (Array.isArray(given) ? given.includes(label) : given === label);
        b.classList.toggle("selected", on);
        b.setAttribute("aria-pressed", String(on));
      });
      if (none) {
        const on = Array.isArray(given) && given.length === 0;
        none.classList.toggle("selected", on);
        none.setAttribute("aria-pressed", String(on));
      }
    },
    act(action: KeyAction): boolean {
      if (action.type === "choose") press(action.index);
      else if (action.type === "none" && multi) ctx.set(noneOf(ctx.get(), q));
      else return false;
      return true;
    },
  };
}

function spanControl(q: Question, text: string | null, ctx: Ctx): Control {
  if (text === null) {
    const note = h("p", { class: "dq-guide" }, "This item has no second text to mark.");
    return { el: questionBlock(q, note, questionKeys(q, ctx.others), ctx.pick), count: 0, paint: () => {}, act: () => false };
  }
  const { words, pieces } = tokenise(text);
  const given = ctx.get()[q.id];
  let marks = marksFrom(words, given && typeof given === "object" && !Array.isArray(given) ? given.spans : []);
  let cursor = Math.max(marks.indexOf(true), 0);
  // → is the next word in a left-to-right text and the one before in a right-to-left one.
  const rtl = textDirection(text) === "rtl";
  const mark = (i: number): void => {
    cursor = i;
    marks = toggleMark(marks, i);
    ctx.set(withSpans(ctx.get(), q, spansOf(words, marks)));
  };
  const line = wordsLine(q, text, pieces, (i) => {
    ctx.pick();
    mark(i);
  });
  const marked = h("p", { class: "dq-marked", testid: `dq-${q.id}-marked`, "aria-live": "polite" });
  const el = questionBlock(q, h("div", {}, line.el, marked), questionKeys(q, ctx.others), ctx.pick);
  let current = false;
  const paint = (): void => {
    line.words.forEach((w, i) => {
      w.classList.toggle("marked", marks[i] === true);
      w.classList.toggle("cursor", current && i === cursor);
    });
    // The stretch between two marked words is marked too: they make one span.
    pieces.forEach((_, k) => {
      const gap = line.gaps[k];
      if (!gap) return;
      const before = pieces[k - 1]?.word;
      const after = pieces[k + 1]?.word;
      gap.classList.toggle("marked", before != null && after != null && marks[before] === true && marks[after] === true);
    });
    markedLine(marked, spansOf(words, marks).map((s) => spanText(text, s)));
  };
  return {
    el,
    count: 0,
    paint(now: boolean): void {
      current = now;
      paint();
    },
    act(action: KeyAction): boolean {
      if (action.type === "word") {
        cursor = moveWord(cursor, words.length, rtl ? -action.delta : action.delta);
        paint();
        line.words[cursor]?.scrollIntoView({ block: "nearest" });
      } else if (action.type === "toggle-cursor") {
        if (words.length > 0) mark(cursor);
      } else return false;
      return true;
    },
  };
}

function textControl(q: Question, ctx: Ctx): Control {
  const box = textBox(q, (text) => ctx.set(withText(ctx.get(), q, text)));
  const given = ctx.get()[q.id];
  box.value = typeof given === "string" ? given : "";
  const el = questionBlock(q, box, questionKeys(q, ctx.others), ctx.pick);
  return {
    el,
    count: 0,
    paint: () => {},
    act(action: KeyAction): boolean {
      if (action.type !== "write") return false;
      box.focus();
      return true;
    },
    focus: () => box.focus(),
  };
}

export function designBody(item: Item, hooks: BodyHooks, kept: WorkDraft | null = null): ItemBody {
  const questions = askedQuestions(item.questions);
  let answers: Answers = restored(item.questions, kept?.answers ?? item.previous?.answers);
  let current = Math.min(Math.max(kept?.question ?? 0, 0), Math.max(questions.length - 1, 0));

  const controls: Control[] = questions.map((q, i) => {
    const ctx: Ctx = {
      get: () => answers,
      set: (next) => {
        answers = next;
        paint();
        hooks.changed();
      },
      pick: () => {
        if (current !== i) go(i);
      },
      others: questions.length > 1,
    };
    if (q.type === "span") return spanControl(q, q.over === "text_b" ? item.text_b : item.claim, ctx);
    if (q.type === "text") return textControl(q, ctx);
    return choiceControl(q, ctx);
  });

  function paint(): void {
    controls.forEach((c, i) => {
      c.el.classList.toggle("current", i === current);
      c.paint(i === current);
    });
  }

  function go(i: number): void {
    current = Math.min(Math.max(i, 0), Math.max(controls.length - 1, 0));
    paint();
    controls[current]?.el.scrollIntoView({ block: "nearest" });
  }

  paint();
  return {
    el: h(
      "section",
      { class: "design-questions", testid: "design-questions", "aria-label": "Questions" },
      ...controls.map((c) => c.el),
    ),
    get count(): number {
      return controls[current]?.count ?? 0;
    },
    act(action: KeyAction): boolean {
      if (action.type === "cursor") {
        go(current + action.delta);
        return true;
      }
      if (action.type === "write" && questions[current]?.type !== "text") {
        // W goes to the next text question (the first, after the last).
        const at = questions.findIndex((q, i) => i > current && q.type === "text");
        const to = at >= 0 ? at : questions.findIndex((q) => q.type === "text");
        if (to < 0) return true;
        go(to);
        controls[to]?.focus?.();
        return true;
      }
      const c = controls[current];
      return c ? c.act(action) || ["choose", "none", "word", "toggle-cursor", "write"].includes(action.type) : false;
    },
    ready: () => missing(item.questions, answers).length === 0,
    keep: () => ({ answers, question: current }),
    async draft(): Promise<Draft> {
      const blocked = blockedText(item.questions, answers);
      if (blocked) {
        // The cursor goes to the first question left, where the keys answer it.
        const first = missing(item.questions, answers)[0];
        if (first) go(questions.indexOf(first));
        return { blocked };
      }
      return { answer: { answers: toSubmit(item.questions, answers) } };
    },
  };
}
