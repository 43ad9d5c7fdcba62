import { describe, expect, it } from "vitest";
import type { Question, QueueCandidate, QueueItem } from "../ipc";
import {
  atEnd,
  pagedOn,
  answerText,
  candidateNumbers,
  clipped,
  chosenSentences,
  decisionText,
  documentGroups,
  handAnswer,
  labelsFor,
  labelText,
  nextIndex,
  outcomeText,
  shareText,
  toggled,
} from "./adjudication";

const cand = (sentence_id: number, document_id: string, sentence_index: number): QueueCandidate => ({
  sentence_id,
  document_id,
  sentence_index,
  text: `s${sentence_id}`,
});
const candidates = [cand(10, "doc-b", 7), cand(11, "doc-a", 3), cand(12, "doc-b", 2)];

const item = (task_id: number, decided: boolean): QueueItem => ({
  task_id,
  kind: "label",
  text_b: null,
  questions: [],
  claim: "c",
  claim_id: "c1",
  claim_number: 1,
  group: "disagreement",
  share_agreeing: 0.5,
  outcome: { outcome: "no_majority" },
  answers: [],
  candidates: [],
  decision: decided ? { lead: "lea", at: 0, reason: null, category: null, taken_from: null, answer: { kind: "label", label: "REFUTED" } } : null,
});

describe("adjudication helpers", () => {
  it("reads answers by the numbers of the candidates shown", () => {
    expect(candidateNumbers([12, 10], candidates)).toEqual([1, 3]);
    expect(answerText({ kind: "evidence", selected: [11], no_evidence: false }, candidates)).toBe("sentence 2");
    expect(answerText({ kind: "evidence", selected: [10, 12, 99], no_evidence: false }, candidates)).toBe("sentences 1, 3 (+1 not shown)");
    expect(answerText({ kind: "evidence", selected: [], no_evidence: true }, candidates)).toBe("No evidence");
    expect(answerText({ kind: "evidence", selected: [], no_evidence: false }, candidates)).toBe("nothing selected");
    expect(answerText({ kind: "label", label: "NOT ENOUGH INFO" }, [])).toBe("Not enough info");
    expect(answerText({ kind: "verify", label: "does_not_contradict" }, [])).toBe("Does not contradict");
    expect(answerText(null, [])).toBe("no answer");
    // A design answer, question by question.
    expect(answerText({ kind: "design", answers: { noise: "clean", relation: "entailment" } }, [])).toBe("noise: clean; relation: entailment");
  });

  it("says what was settled and how much the annotators agree", () => {
    expect(outcomeText({ outcome: "evidence", sentences: [11] }, candidates)).toBe("Gold: sentence 2 — “s11”");
    expect(outcomeText({ outcome: "evidence", sentences: [10, 11] }, candidates)).toBe("Gold: sentences 1, 2");
    expect(outcomeText({ outcome: "no_majority" }, [])).toBe("No label has a majority (dropped)");
    // A design item is settled question by question: no "label" to have a majority.
    const relation: Question = { id: "relation", type: "choice", labels: ["entailment", "unknown"], required: true };
    expect(outcomeText({ outcome: "no_majority" }, [], true, [relation])).toBe("A question has no majority (dropped)");
    // Issue 36: an item nobody counted answered says so, not "no majority".
    expect(outcomeText({ outcome: "no_gold_evidence" }, [], false)).toBe("No counted answers (dropped)");
    expect(outcomeText({ outcome: "no_majority" }, [], false)).toBe("No counted answers (dropped)");
    expect(outcomeText({ outcome: "label", label: "does_not_contradict" }, [])).toBe("Gold: Does not contradict");
    expect(outcomeText({ outcome: "answers", answers: { relation: "unknown", salient: { spans: [[0, 5]] } } }, [])).toBe(
      "Gold: relation: unknown; salient: 0–5 (1 span)",
    );
    expect(shareText(2 / 3)).toBe("67% agree");
    expect(shareText(null)).toBe("no counted answers");
  });

  it("names who decided, whose answer was taken and why", () => {
    const text = decisionText({ lead: "lea", at: 0, reason: "ana read the source", category: null, taken_from: "ana", answer: { kind: "label", label: "REFUTED" } }, []);
    expect(text).toMatch(/^lea took ana's answer \(Refuted\) on .+ — “ana read the source”$/);
    const kinded = decisionText({ lead: "lea", at: 0, reason: null, category: "guideline gap", taken_from: null, answer: { kind: "label", label: "REFUTED" } }, []);
    expect(kinded).toMatch(/^lea set Refuted on .+ \(guideline gap\)$/);
    expect(decisionText({ lead: "lea", at: 0, reason: null, category: null, taken_from: null, answer: { kind: "evidence", selected: [], no_evidence: true } }, [])).toMatch(
      /^lea set No evidence on /,
    );
  });

  it("builds a hand answer typed for its kind and toggles in the order shown", () => {
    expect(handAnswer("evidence", [], null)).toEqual({ kind: "evidence", selected: [], no_evidence: true });
    expect(handAnswer("evidence", [12], null)).toEqual({ kind: "evidence", selected: [12], no_evidence: false });
    expect(handAnswer("verify", [], "malformed")).toEqual({ kind: "verify", label: "malformed" });
    expect(handAnswer("label", [], "REFUTED")).toEqual({ kind: "label", label: "REFUTED" });
    // A label of the other kind, or none, gives no answer to send.
    expect(handAnswer("verify", [], "REFUTED")).toBeNull();
    expect(handAnswer("label", [], null)).toBeNull();
    expect(handAnswer("refute", [], null)).toBeNull();
    expect(toggled([12], 10, candidates)).toEqual([10, 12]);
    expect(toggled([10, 12], 10, candidates)).toEqual([12]);
    expect(labelsFor("label")).toHaveLength(4);
    expect(labelsFor("verify")[0]).toBe("contradicts");
    expect(labelText("does_not_contradict")).toBe("Does not contradict");
  });

  it("groups candidates by document in sentence order, keeping their numbers", () => {
    const groups = documentGroups(candidates);
    expect(groups.map((g) => g.documentId)).toEqual(["doc-b", "doc-a"]);
    expect(groups[0]?.sentences.map((s) => s.number)).toEqual([3, 1]);
  });

  it("goes on to the next undecided item, wrapping round", () => {
    const items = [item(1, false), item(2, true), item(3, true), item(4, false)];
    expect(nextIndex(items, 0)).toBe(3);
    expect(nextIndex(items, 3)).toBe(0);
    expect(nextIndex([item(1, true), item(2, true)], 0)).toBe(1);
  });
});

describe("chosenSentences", () => {
  it("gives the text of each chosen candidate with its number, so a card shows what was chosen", () => {
    const answer = { kind: "evidence" as const, selected: [12, 10, 99], no_evidence: false };
    expect(chosenSentences(answer, candidates)).toEqual({
      sentences: [
        { number: 1, text: "s10" },
        { number: 3, text: "s12" },
      ],
      outside: 1,
    });
    expect(chosenSentences({ kind: "evidence", selected: [], no_evidence: true }, candidates)).toBeNull();
    expect(chosenSentences({ kind: "label", label: "SUPPORTED" }, candidates)).toBeNull();
    expect(chosenSentences(null, candidates)).toBeNull();
  });
});

describe("clipped", () => {
  it("cuts long text at a word with an ellipsis, and leaves short text alone", () => {
    expect(clipped("short", 10)).toBe("short");
    expect(clipped("one two three four five", 12)).toBe("one two…");
    expect(clipped("abcdefghijklmnop", 8)).toBe("abcdefgh…");
  });
});

describe("paging the answers' sentences (M)", () => {
  const box = (scrollTop: number, scrollHeight: number, clientHeight = 80) => ({ scrollTop, clientHeight, scrollHeight });

  it("knows a box that shows its end, a pixel's rounding aside", () => {
    expect(atEnd(box(0, 80))).toBe(true);
    expect(atEnd(box(0, 81))).toBe(true);
    expect(atEnd(box(0, 120))).toBe(false);
    expect(atEnd(box(40, 120))).toBe(true);
  });

  it("moves each cut list on by its lines less one, never past its end", () => {
    // Four lines of 20px shown: three new lines a page, the last one read stays in view.
    expect(pagedOn([box(0, 200), box(0, 100), box(0, 60)], 20)).toEqual([60, 20, 0]);
    expect(pagedOn([box(60, 200), box(20, 100), box(0, 60)], 20)).toEqual([120, 20, 0]);
  });

  it("goes back to the start once every list is read to its end", () => {
    expect(pagedOn([box(120, 200), box(20, 100), box(0, 60)], 20)).toEqual([0, 0, 0]);
  });

  it("still moves a list shorter than two lines a line at a time", () => {
    expect(pagedOn([box(0, 100, 20)], 20)).toEqual([20]);
  });
});
