// Pure helpers of the adjudication queue: how answers, outcomes and decisions read, which
// labels a kind offers, and candidates grouped by their document. No DOM, no IPC.

import { momentText } from "../format";
import type { Decision, Judgement, KindAnswer, Outcome, Question, QueueCandidate, QueueItem, TaskKind } from "../ipc";
import { judgementText, LABEL_CHOICES, VERDICT_CHOICES } from "./judgements";
import { answersText } from "./work/design-answers";

/** The verdicts or labels the lead can give by hand, in key order (1 first). */
export function labelsFor(kind: TaskKind): readonly Judgement[] {
  if (kind === "verify") return VERDICT_CHOICES;
  if (kind === "label") return LABEL_CHOICES;
  return [];
}

/** A verdict or label as a person reads it: "does_not_contradict" → "Does not contradict". */
export function labelText(label: Judgement): string {
  return judgementText(label);
}

/** The 1-based numbers of the selected candidates, in the order shown. */
export function candidateNumbers(selected: number[], candidates: QueueCandidate[]): number[] {
  return candidates.flatMap((c, i) => (selected.includes(c.sentence_id) ? [i + 1] : []));
}

function numbersText(numbers: number[]): string {
  if (numbers.length === 0) return "nothing selected";
  return `${numbers.length === 1 ? "sentence" : "sentences"} ${numbers.join(", ")}`;
}

/** An answer in words; a design item's question by question, in `questions`' order. */
export function answerText(answer: KindAnswer | null, candidates: QueueCandidate[], questions: Question[] = []): string {
  if (answer === null) return "no answer";
  switch (answer.kind) {
    case "verify":
    case "label":
      return labelText(answer.label);
    case "refute":
      return answer.text;
    case "evidence": {
      if (answer.no_evidence) return "No evidence";
      const numbers = candidateNumbers(answer.selected, candidates);
      const outside = answer.selected.length - numbers.length;
      return numbersText(numbers) + (outside > 0 ? ` (+${outside} not shown)` : "");
    }
    case "design":
      return answersText(answer.answers, questions);
  }
}

/**
 * The candidates an evidence answer selected, each with its number in the list shown, so
 * a card can show what was chosen rather than "sentence 4"; `outside` counts selected
 * sentences that are no candidate shown. Null for any other answer, and for no evidence.
 */
export function chosenSentences(
  answer: KindAnswer | null,
  candidates: QueueCandidate[],
): { sentences: { number: number; text: string }[]; outside: number } | null {
  if (answer?.kind !== "evidence" || answer.no_evidence) return null;
  const sentences = candidates.flatMap((c, i) => (answer.selected.includes(c.sentence_id) ? [{ number: i + 1, text: c.text }] : []));
  return { sentences, outside: answer.selected.length - sentences.length };
}

/** The sentences an answer selected; none for any other kind. */
export function selectedOf(answer: KindAnswer): number[] {
  return answer.kind === "evidence" ? answer.selected : [];
}

/** What the answers (or the lead) settled on, in words; `counted` false when the item
 * has no counted answers, so nothing could have a majority; `questions` a design item's,
 * whose answers are settled question by question. */
export function outcomeText(outcome: Outcome, candidates: QueueCandidate[], counted = true, questions: Question[] = []): string {
  if (!counted && (outcome.outcome === "no_gold_evidence" || outcome.outcome === "no_majority")) {
    return "No counted answers (dropped)";
  }
  switch (outcome.outcome) {
    case "evidence": {
      // One gold sentence is quoted, so the outcome says what it is, not only its number.
      const numbers = candidateNumbers(outcome.sentences, candidates);
      const only = numbers.length === 1 ? candidates[(numbers[0] ?? 0) - 1] : undefined;
      return `Gold: ${numbersText(numbers)}${only ? ` — “${clipped(only.text, 90)}”` : ""}`;
    }
    case "no_evidence":
      return "Gold: no evidence (dropped)";
    case "no_gold_evidence":
      return "No sentence has a majority (dropped)";
    case "label":
      return `Gold: ${labelText(outcome.label)}`;
    case "no_majority":
      return questions.length > 0 ? "A question has no majority (dropped)" : "No label has a majority (dropped)";
    case "answers":
      return `Gold: ${answersText(outcome.answers, questions)}`;
  }
}

/** `text` cut to `most` characters at a word, with an ellipsis when cut. */
export function clipped(text: string, most: number): string {
  if (text.length <= most) return text;
  const cut = text.slice(0, most);
  const space = cut.lastIndexOf(" ");
  return `${(space > most / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** "33% agree", or why there is no share. */
export function shareText(share: number | null): string {
  return share === null ? "no counted answers" : `${Math.round(share * 100)}% agree`;
}

/** Who decided, when, in which category and why, in one line. */
export function decisionText(d: Decision, candidates: QueueCandidate[], questions: Question[] = []): string {
  const when = momentText(d.at);
  const given = answerText(d.answer, candidates, questions);
  const what = d.taken_from ? `took ${d.taken_from}'s answer (${given})` : `set ${given}`;
  return `${d.lead} ${what} on ${when}${d.category ? ` (${d.category})` : ""}${d.reason ? ` — “${d.reason}”` : ""}`;
}

/** The answer the lead gives by hand, typed for the item's kind; null when the label
 * given is not one of that kind's (a refutation is reviewed, never decided here). */
export function handAnswer(kind: TaskKind, selected: number[], label: Judgement | null): KindAnswer | null {
  if (kind === "evidence") return selected.length === 0 ? { kind, selected: [], no_evidence: true } : { kind, selected, no_evidence: false };
  if (kind === "verify") {
    const verdict = VERDICT_CHOICES.find((v) => v === label);
    return verdict ? { kind, label: verdict } : null;
  }
  if (kind === "label") {
    const given = LABEL_CHOICES.find((l) => l === label);
    return given ? { kind, label: given } : null;
  }
  return null;
}

/** Toggles a sentence in a selection, keeping the candidates' order. */
export function toggled(selected: number[], sentenceId: number, candidates: QueueCandidate[]): number[] {
  const next = selected.includes(sentenceId) ? selected.filter((s) => s !== sentenceId) : [...selected, sentenceId];
  return candidates.map((c) => c.sentence_id).filter((id) => next.includes(id));
}

export interface DocumentGroup {
  documentId: string;
  /** Candidates in document order, each with its number in the list shown (1-based). */
  sentences: { number: number; candidate: QueueCandidate }[];
}

/** The candidates grouped by their document, each document's in sentence order. */
export function documentGroups(candidates: QueueCandidate[]): DocumentGroup[] {
  const groups = new Map<string, DocumentGroup>();
  candidates.forEach((candidate, i) => {
    const group = groups.get(candidate.document_id) ?? { documentId: candidate.document_id, sentences: [] };
    group.sentences.push({ number: i + 1, candidate });
    groups.set(candidate.document_id, group);
  });
  for (const g of groups.values()) g.sentences.sort((a, b) => a.candidate.sentence_index - b.candidate.sentence_index);
  return [...groups.values()];
}

/** Where to go after deciding item `at`: the next undecided one after it, else the next. */
export function nextIndex(items: QueueItem[], at: number): number {
  for (let i = at + 1; i < items.length; i += 1) if (!items[i]?.decision) return i;
  for (let i = 0; i < at; i += 1) if (!items[i]?.decision) return i;
  return Math.min(at + 1, Math.max(items.length - 1, 0));
}

/** How far a box is scrolled: an answer's list of sentences, which scrolls in its card. */
export interface Scrolled {
  scrollTop: number;
  clientHeight: number;
  scrollHeight: number;
}

/** Whether a box shows its end (a pixel's rounding aside). */
export function atEnd(box: Scrolled): boolean {
  return box.scrollTop + box.clientHeight >= box.scrollHeight - 1;
}

/**
 * Where each answer's list scrolls on "more" (M): one page on, by whole lines of
 * `line` px less one (the last line read stays in view), a list at its end staying there;
 * once every list is at its end, back to their starts. The lead reads every sentence
 * whole without a mouse, and the decision and the fields under the cards never move.
 */
export function pagedOn(boxes: Scrolled[], line: number): number[] {
  if (boxes.every(atEnd)) return boxes.map(() => 0);
  return boxes.map((b) => {
    if (atEnd(b)) return b.scrollTop;
    const step = Math.max(line, Math.floor((b.clientHeight - line) / line) * line);
    return Math.min(b.scrollTop + step, b.scrollHeight - b.clientHeight);
  });
}
