// A design item's answers as the annotator builds them: one value per question, in the
// shape `submit` takes (a label, a list of labels, spans, a text), and whether every
// required question has one. Pure: no DOM.

import type { Given, Question } from "../../ipc";

/** The answers by question id; a question absent is not answered yet. */
export type Answers = Record<string, Given>;

/** The comment every item takes: the work screen's comment box answers it, not a question. */
export const COMMENT = "comment";

/** The questions a design item asks on screen, in order: all but the comment. */
export function askedQuestions(questions: Question[]): Question[] {
  return questions.filter((q) => q.id !== COMMENT);
}

/** A question's id as a heading: "verdict_applies" → "Verdict applies". */
export function questionTitle(q: Question): string {
  const words = q.id.replace(/_+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The question's label matching `given` case aside, as the design spells it. */
function labelOf(q: Question, given: string): string | null {
  const wanted = given.trim().toLowerCase();
  return q.labels?.find((l) => l.toLowerCase() === wanted) ?? null;
}

function isSpans(g: Given): g is { spans: Array<[number, number]> } {
  return typeof g === "object" && !Array.isArray(g);
}

/**
 * `given` (an earlier answer, or a kept draft) kept to what the questions take: labels as
 * the design spells them and in its order, values of the wrong shape and unknown
 * questions dropped.
 */
export function restored(questions: Question[], given: Answers | null | undefined): Answers {
  const out: Answers = {};
  if (!given) return out;
  for (const q of askedQuestions(questions)) {
    const g = given[q.id];
    if (g === undefined) continue;
    if (q.type === "choice" && typeof g === "string") {
      const label = labelOf(q, g);
      if (label) out[q.id] = label;
    } else if (q.type === "multi" && Array.isArray(g)) {
      const chosen = new Set(g.map((l) => labelOf(q, l)));
      out[q.id] = (q.labels ?? []).filter((l) => chosen.has(l));
    } else if (q.type === "span" && isSpans(g)) {
      out[q.id] = { spans: g.spans.map(([s, e]) => [s, e]) };
    } else if (q.type === "text" && typeof g === "string") {
      out[q.id] = g;
    }
  }
  return out;
}

/** With the `index`th label of a choice question chosen. */
export function choose(answers: Answers, q: Question, index: number): Answers {
  const label = q.labels?.[index];
  return label === undefined ? answers : { ...answers, [q.id]: label };
}

/**
 * With the `index`th label of a multiple-choice question chosen or unchosen; the first
 * label chosen answers the question (none chosen answers it too, by `noneOf`).
 */
export function toggleLabel(answers: Answers, q: Question, index: number): Answers {
  const label = q.labels?.[index];
  if (label === undefined) return answers;
  const was = answers[q.id];
  const chosen = new Set(Array.isArray(was) ? was : []);
  if (chosen.has(label)) chosen.delete(label);
  else chosen.add(label);
  return { ...answers, [q.id]: (q.labels ?? []).filter((l) => chosen.has(l)) };
}

/** A multiple-choice question answered "none of them", or unanswered again if it was. */
export function noneOf(answers: Answers, q: Question): Answers {
  const was = answers[q.id];
  const next = { ...answers };
  if (Array.isArray(was) && was.length === 0) delete next[q.id];
  else next[q.id] = [];
  return next;
}

/** With a span question's spans; none leaves it unanswered. */
export function withSpans(answers: Answers, q: Question, spans: [number, number][]): Answers {
  const next = { ...answers };
  if (spans.length === 0) delete next[q.id];
  else next[q.id] = { spans };
  return next;
}

/** With a text question's text; only spaces leave it unanswered. */
export function withText(answers: Answers, q: Question, text: string): Answers {
  const next = { ...answers };
  if (text.trim() === "") delete next[q.id];
  else next[q.id] = text;
  return next;
}

/** Whether the question has an answer that can be sent. */
export function isAnswered(answers: Answers, q: Question): boolean {
  const g = answers[q.id];
  if (g === undefined) return false;
  if (q.type === "span") return isSpans(g) && g.spans.length > 0;
  if (q.type === "text") return typeof g === "string" && g.trim() !== "";
  return true;
}

/** The required questions not answered yet, in order. */
export function missing(questions: Question[], answers: Answers): Question[] {
  return askedQuestions(questions).filter((q) => q.required && !isAnswered(answers, q));
}

/** The answers as `submit` takes them: the answered questions only, texts trimmed. */
export function toSubmit(questions: Question[], answers: Answers): Answers {
  const out: Answers = {};
  for (const q of askedQuestions(questions)) {
    if (!isAnswered(answers, q)) continue;
    const g = answers[q.id];
    if (g === undefined) continue;
    out[q.id] = typeof g === "string" && q.type === "text" ? g.trim() : g;
  }
  return out;
}

/** Why the answer cannot be sent yet, naming the questions; null when it can. */
export function blockedText(questions: Question[], answers: Answers): string | null {
  const left = missing(questions, answers);
  if (left.length === 0) return null;
  const names = left.map((q) => `“${questionTitle(q)}”`);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  return `Answer ${list} first (↑/↓ to move between questions).`;
}

/** An answer to one question in words, for a lead's screen: "entailment", "a, b", "none", "2 spans". */
export function givenText(g: Given): string {
  if (typeof g === "string") return g;
  if (Array.isArray(g)) return g.length === 0 ? "none" : g.join(", ");
  const n = g.spans.length;
  if (n === 0) return "nothing marked";
  return g.spans.map(([s, e]) => `${s}–${e}`).join(", ") + (n === 1 ? " (1 span)" : ` (${n} spans)`);
}

/**
 * A design answer in words, question by question: "relation: entailment; noise: clean";
 * with the design's `questions`, in their order (the work screen's) and titled as there:
 * "Relation: entailment; Noise: clean".
 */
export function answersText(answers: Answers, questions: Question[] = []): string {
  const rows = answerRows(answers, questions);
  if (rows.length === 0) return "no answers";
  return rows.map((r) => `${r.title}: ${givenText(r.given)}`).join("; ");
}

/**
 * An answer question by question: the design's questions first, in their order and
 * titled as the work screen titles them, then any answered question they do not name
 * (titled by its id).
 */
export function answerRows(answers: Answers, questions: Question[] = []): { id: string; title: string; given: Given }[] {
  const asked = askedQuestions(questions);
  const known = new Set(asked.map((q) => q.id));
  return [
    ...asked.flatMap((q) => {
      const given = answers[q.id];
      return given === undefined ? [] : [{ id: q.id, title: questionTitle(q), given }];
    }),
    ...Object.entries(answers)
      .filter(([id]) => !known.has(id))
      .map(([id, given]) => ({ id, title: id, given })),
  ];
}
