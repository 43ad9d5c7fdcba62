import { describe, expect, it } from "vitest";
import type { Question } from "../../ipc";
import {
  answersText,
  askedQuestions,
  blockedText,
  choose,
  missing,
  noneOf,
  questionTitle,
  restored,
  toSubmit,
  toggleLabel,
  withSpans,
  withText,
} from "./design-answers";

const relation: Question = { id: "relation", type: "choice", labels: ["entailment", "contradiction", "unknown"], required: true };
const topics: Question = { id: "topics", type: "multi", labels: ["health", "politics"], required: true };
const salient: Question = { id: "salient", type: "span", over: "text_a", required: true };
const why: Question = { id: "why_so", type: "text", required: false };
const comment: Question = { id: "comment", type: "text", required: false };
const questions = [relation, topics, salient, why, comment];

describe("a design answer", () => {
  it("asks every question but the comment, which the comment box answers", () => {
    expect(askedQuestions(questions).map((q) => q.id)).toEqual(["relation", "topics", "salient", "why_so"]);
    expect(questionTitle(why)).toBe("Why so");
  });

  it("is blocked until every required question is answered, and names those left", () => {
    let a = {};
    expect(missing(questions, a).map((q) => q.id)).toEqual(["relation", "topics", "salient"]);
    expect(blockedText(questions, a)).toBe("Answer “Relation”, “Topics” and “Salient” first (↑/↓ to move between questions).");
    a = choose(a, relation, 1);
    a = toggleLabel(a, topics, 1);
    expect(blockedText(questions, a)).toBe("Answer “Salient” first (↑/↓ to move between questions).");
    // No word marked is no answer to a required span question.
    a = withSpans(a, salient, []);
    expect(missing(questions, a).map((q) => q.id)).toEqual(["salient"]);
    a = withSpans(a, salient, [[0, 4]]);
    expect(missing(questions, a)).toEqual([]);
    expect(blockedText(questions, a)).toBeNull();
  });

  it("builds the map submit takes: labels, lists in the design's order, spans, trimmed text", () => {
    let a = choose({}, relation, 2);
    a = toggleLabel(a, topics, 1);
    a = toggleLabel(a, topics, 0);
    a = withSpans(a, salient, [[0, 4], [9, 15]]);
    a = withText(a, why, "  because  ");
    expect(toSubmit(questions, a)).toEqual({
      relation: "unknown",
      topics: ["health", "politics"],
      salient: { spans: [[0, 4], [9, 15]] },
      why_so: "because",
    });
    // A blank text is no answer, and an optional question unanswered is left out.
    expect(toSubmit(questions, withText(a, why, "   "))).not.toHaveProperty("why_so");
  });

  it("takes none of a multiple choice's labels as an answer (0), and 0 again takes it back", () => {
    const none = noneOf({}, topics);
    expect(none).toEqual({ topics: [] });
    expect(missing([topics], none)).toEqual([]);
    expect(noneOf(none, topics)).toEqual({});
    // Unchoosing the last label leaves "none", an answer.
    expect(toggleLabel(toggleLabel({}, topics, 0), topics, 0)).toEqual({ topics: [] });
  });

  it("restores an earlier answer as the design spells it, dropping what does not fit", () => {
    expect(
      restored(questions, {
        relation: "CONTRADICTION",
        topics: ["Politics", "health", "sport"],
        salient: { spans: [[2, 5]] },
        why_so: ["not", "a", "text"],
        gone: "x",
        comment: "a comment",
      }),
    ).toEqual({ relation: "contradiction", topics: ["health", "politics"], salient: { spans: [[2, 5]] } });
    expect(restored(questions, null)).toEqual({});
  });

  it("reads as question: value pairs on a lead's screen", () => {
    expect(answersText({ relation: "entailment", topics: [], salient: { spans: [[0, 4], [9, 15]] } })).toBe(
      "relation: entailment; topics: none; salient: 0–4, 9–15 (2 spans)",
    );
    expect(answersText({})).toBe("no answers");
    // With the design's questions: in their order (the work screen's), titled as there.
    expect(answersText({ noise: "clean", relation: "entailment" }, [relation, { id: "noise", type: "choice", labels: ["clean", "noisy"], required: true }])).toBe(
      "Relation: entailment; Noise: clean",
    );
  });
});
