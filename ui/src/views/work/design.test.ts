import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, type Ack, type Item, type Question } from "../../ipc";
import { keyAction, keyHelp } from "./keys";
import { workScreen } from "./screen";

vi.mock("../../ipc", async (load) => {
  const real = await load<typeof import("../../ipc")>();
  return { ...real, api: { nextItem: vi.fn(), previousItem: vi.fn(), submitAnswer: vi.fn(), paces: vi.fn(), skipItem: vi.fn() } };
});

const mocked = vi.mocked(api);
const comment: Question = { id: "comment", type: "text", required: false };
const pairQuestions: Question[] = [
  { id: "relation", type: "choice", labels: ["entailment", "contradiction", "unknown"], required: true, guideline: "Does the first entail the second?" },
  { id: "noise", type: "choice", labels: ["clean", "noisy"], required: true },
  comment,
];
const salient: Question[] = [{ id: "salient", type: "span", over: "text_a", required: true }, comment];

function item(taskId: number, questions: Question[], textB: string | null, previous: Item["previous"] = null): Item {
  return {
    task_id: taskId,
    kind: "design",
    claim: "🦠 The vaccine is safe, say doctors",
    context: null,
    options: [],
    counter_claim: null,
    text_b: textB,
    evidence: [],
    evidence_state: null,
    guidelines: "relation: Does the first entail the second?",
    previous,
    pace: { done: 0, total: 4, per_hour: null, minutes_left: null, more: false },
    shows: textB === null ? "claim" : "pair",
    questions,
  };
}

const ack = (taskId: number): Ack => ({ ack: `ack-${taskId}`, task_id: taskId });
const settle = () => new Promise((r) => setTimeout(r, 0));
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`);

async function open() {
  const screen = workScreen("design", { home: vi.fn(), fail: vi.fn(), whenReady: (done) => done() });
  document.body.replaceChildren(screen.el);
  screen.shown?.();
  await settle();
  const press = (...keys: string[]) => keys.forEach((key) => screen.onKey?.(new KeyboardEvent("keydown", { key })));
  return { el: screen.el, press };
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe("design keys", () => {
  it("moves between questions with ↑/↓ and J/K, words with ←/→; digits answer the current question", () => {
    expect(keyAction("design", "ArrowDown", 3)).toEqual({ type: "cursor", delta: 1 });
    expect(keyAction("design", "k", 3)).toEqual({ type: "cursor", delta: -1 });
    expect(keyAction("design", "ArrowRight", 0)).toEqual({ type: "word", delta: 1 });
    expect(keyAction("design", "ArrowLeft", 0)).toEqual({ type: "word", delta: -1 });
    expect(keyAction("design", " ", 0)).toEqual({ type: "toggle-cursor" });
    expect(keyAction("design", "3", 3)).toEqual({ type: "choose", index: 2 });
    expect(keyAction("design", "4", 3)).toBeNull();
    expect(keyAction("design", "0", 3)).toEqual({ type: "none" });
    expect(keyAction("design", "Enter", 3)).toEqual({ type: "submit" });
    expect(keyAction("design", "w", 0)).toEqual({ type: "write" });
    // The other kinds leave ← and → alone.
    expect(keyAction("evidence", "ArrowRight", 3)).toBeNull();
    expect(keyHelp("design", 3).map(([k]) => k)).toEqual(expect.arrayContaining(["J / ↓", "K / ↑", "1–3", "←", "→", "Space", "Enter"]));
  });
});

describe("a design item", () => {
  it("shows a pair side by side and answers it by keys only", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: item(7, pairQuestions, "The vaccine is dangerous"), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: null, reason: "All done." });
    mocked.submitAnswer.mockResolvedValue(ack(7));
    mocked.paces.mockResolvedValue([]);
    const { el, press } = await open();
    expect(q(el, "design-pair")).not.toBeNull();
    expect(q(el, "item-text-b")?.textContent).toBe("The vaccine is dangerous");
    expect(q(el, "item-text-b")?.getAttribute("dir")).toBe("auto");
    expect(q(el, "guidelines")).toBeNull();
    expect(q(el, "dq-relation")?.textContent).toContain("Does the first entail the second?");
    // The comment is the comment box, not a question.
    expect(q(el, "dq-comment")).toBeNull();
    expect(q(el, "dq-relation")?.classList.contains("current")).toBe(true);
    press("2");
    expect(q(el, "dq-relation-2")?.getAttribute("aria-pressed")).toBe("true");
    // Enter with a required question left: not sent, and the cursor goes to it.
    press("ArrowDown", "ArrowUp", "Enter");
    await settle();
    expect(mocked.submitAnswer).not.toHaveBeenCalled();
    expect(q(el, "status")?.textContent).toContain("“Noise”");
    expect(q(el, "dq-noise")?.classList.contains("current")).toBe(true);
    press("2");
    expect(q(el, "dq-relation-2")?.getAttribute("aria-pressed")).toBe("true");
    expect(q(el, "dq-noise-2")?.getAttribute("aria-pressed")).toBe("true");
    expect(q(el, "submit")?.getAttribute("aria-disabled")).toBe("false");
    press("Enter");
    await settle();
    expect(mocked.submitAnswer.mock.calls[0]?.[0]).toMatchObject({
      task_id: 7,
      answers: { relation: "contradiction", noise: "noisy" },
      selected: [],
      label: null,
      text: null,
      comment: null,
    });
  });

  it("marks words by ←/→ and Space, with spans in code points, and restores them on going back", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: item(8, salient, null), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: null, reason: "All done." });
    mocked.submitAnswer.mockResolvedValue(ack(8));
    mocked.paces.mockResolvedValue([]);
    const { el, press } = await open();
    expect(q(el, "design-claim")).not.toBeNull();
    // Words: The(2–5) vaccine(6–13) is(14–16) safe(17–21) say(23–26) doctors(27–34).
    expect(q(el, "dq-salient-word-1")?.classList.contains("cursor")).toBe(true);
    press("ArrowRight", " ", "ArrowRight", "ArrowRight", " ", "ArrowLeft", " ");
    expect(q(el, "dq-salient-word-2")?.classList.contains("marked")).toBe(true);
    expect(q(el, "dq-salient-marked")?.textContent).toBe("Marked: vaccine is safe");
    press("ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", " ");
    q(el, "dq-salient-word-3")?.click();
    expect(q(el, "dq-salient-marked")?.textContent).toBe("Marked: vaccine, safe, doctors");
    press("Enter");
    await settle();
    const sent = mocked.submitAnswer.mock.calls[0]?.[0];
    expect(sent?.answers).toEqual({ salient: { spans: [[6, 13], [17, 21], [27, 34]] } });

    mocked.previousItem.mockResolvedValueOnce(
      item(8, salient, null, { selected: [], no_evidence: false, text: null, label: null, comment: "hm", answers: { salient: { spans: [[6, 21]] } } }),
    );
    press("p");
    await settle();
    expect(q(el, "editing-previous")).not.toBeNull();
    expect(q(el, "dq-salient-marked")?.textContent).toBe("Marked: vaccine is safe");
    expect((q(el, "comment") as HTMLInputElement).value).toBe("hm");
  });

  it("moves the word cursor as the words lie in a right-to-left text", async () => {
    const arabic = { ...item(9, salient, null), claim: "اللقاح آمن تماما" };
    mocked.nextItem.mockResolvedValueOnce({ item: arabic, reason: null });
    const { el, press } = await open();
    expect(q(el, "dq-salient-words")?.getAttribute("dir")).toBe("rtl");
    // The first word is on the right: ← goes on to the second.
    press("ArrowLeft", " ");
    expect(q(el, "dq-salient-word-2")?.classList.contains("marked")).toBe(true);
    press("ArrowRight", "ArrowRight", " ");
    expect(q(el, "dq-salient-word-1")?.classList.contains("marked")).toBe(true);
  });

  it("toggles a multiple choice by digits, 0 for none, and writes a text question after W", async () => {
    const questions: Question[] = [
      { id: "topics", type: "multi", labels: ["health", "politics", "sport"], required: true },
      { id: "why", type: "text", required: true },
      comment,
    ];
    mocked.nextItem.mockResolvedValueOnce({ item: item(10, questions, null), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: null, reason: "All done." });
    mocked.submitAnswer.mockResolvedValue(ack(10));
    mocked.paces.mockResolvedValue([]);
    const { el, press } = await open();
    press("0");
    expect(q(el, "dq-topics-none")?.getAttribute("aria-pressed")).toBe("true");
    press("3", "1", "3");
    expect(q(el, "dq-topics-none")?.getAttribute("aria-pressed")).toBe("false");
    expect(q(el, "dq-topics-1")?.getAttribute("aria-pressed")).toBe("true");
    expect(q(el, "dq-topics-3")?.getAttribute("aria-pressed")).toBe("false");
    // The text is required: not ready until written.
    expect(q(el, "submit")?.getAttribute("aria-disabled")).toBe("true");
    press("w");
    const box = q(el, "dq-why-text") as HTMLTextAreaElement;
    expect(document.activeElement).toBe(box);
    expect(q(el, "dq-why")?.classList.contains("current")).toBe(true);
    box.value = "  a reason ";
    box.dispatchEvent(new Event("input"));
    expect(q(el, "submit")?.getAttribute("aria-disabled")).toBe("false");
    // Ctrl+Enter submits from the box; Enter alone is a new line there.
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }));
    await settle();
    expect(mocked.submitAnswer.mock.calls[0]?.[0]?.answers).toEqual({ topics: ["health"], why: "a reason" });
  });
});
