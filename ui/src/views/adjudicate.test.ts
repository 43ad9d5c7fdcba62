import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, type QueueItem } from "../ipc";
import { adjudicateScreen } from "./adjudicate";
import { grownHeights } from "./answer-card";
import { settingsFixture } from "./leadwork/settings.fixture";

vi.mock("../ipc", async (load) => {
  const real = await load<typeof import("../ipc")>();
  return { ...real, api: { adjudicationQueue: vi.fn(), decide: vi.fn(), undoDecision: vi.fn(), sentencePassage: vi.fn(), settings: vi.fn() } };
});

const mocked = vi.mocked(api);
const settle = () => new Promise((r) => setTimeout(r, 0));
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`);

function item(task_id: number, kind: QueueItem["kind"]): QueueItem {
  const evidence = kind === "evidence";
  return {
    task_id,
    kind,
    claim: `claim ${task_id}`,
    claim_id: `c${task_id}`,
    claim_number: task_id + 100,
    group: "disagreement",
    share_agreeing: 0.5,
    text_b: null,
    questions: [],
    outcome: evidence ? { outcome: "no_gold_evidence" } : { outcome: "no_majority" },
    answers: [
      { annotation_id: 1, annotator: "ana", counted: true, answer: evidence ? { kind: "evidence", selected: [11], no_evidence: false } : { kind: "label", label: "SUPPORTED" }, comment: "sure", trick_failed: false, rejected: false, in_study: false },
      { annotation_id: 2, annotator: "ben", counted: true, answer: evidence ? { kind: "evidence", selected: [12], no_evidence: false } : { kind: "label", label: "REFUTED" }, comment: null, trick_failed: false, rejected: false, in_study: false },
    ],
    candidates: evidence
      ? [11, 12, 13].map((id, i) => ({ sentence_id: id, document_id: "d1", sentence_index: i, text: `sentence ${id}` }))
      : [],
    decision: null,
  };
}

/** The screen `open` made last, to show it again as returning to it would. */
let screen: ReturnType<typeof adjudicateScreen> | undefined;

async function open(items: QueueItem[], categories?: string[]) {
  mocked.adjudicationQueue.mockResolvedValue(items);
  mocked.settings.mockResolvedValue(categories === undefined ? settingsFixture() : { ...settingsFixture(), disagreement_categories: categories });
  const deps = { home: vi.fn(), export: vi.fn(), fail: vi.fn() };
  screen = adjudicateScreen(deps);
  const shown = screen;
  document.body.replaceChildren(shown.el);
  shown.shown?.();
  await settle();
  const press = (key: string) => shown.onKey?.(new KeyboardEvent("keydown", { key }));
  return { el: shown.el, press, deps };
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe("adjudication screen", () => {
  it("shows every answer side by side and takes one by its number with the reason", async () => {
    const { el, press } = await open([item(1, "evidence"), item(2, "label")]);
    // Each card shows the chosen sentence's text beside its number.
    expect(q(el, "adj-value-ana")?.textContent).toBe(`1${item(1, "evidence").candidates[0]?.text}`);
    expect(q(el, "adj-value-ben")?.textContent).toBe(`2${item(1, "evidence").candidates[1]?.text}`);
    expect(q(el, "adj-value-ana")?.querySelector("kbd")).toBeNull();
    (q(el, "adj-reason") as HTMLInputElement).value = "ben read the source";
    press("2");
    await settle();
    expect(mocked.decide).toHaveBeenCalledWith(1, null, { take: "ben" }, "ben read the source", null);
  });

  it("names the disagreement's category from the project's list, picked by G then its number", async () => {
    const { el, press } = await open([item(1, "label")]);
    const category = q(el, "adj-category") as HTMLSelectElement;
    expect([...category.options].map((o) => o.text)).toEqual(["No category — G", "1 ambiguous item", "2 other"]);
    // G shows the numbers above the select; 2 picks "other", and the digit takes no answer.
    const hint = q(el, "adj-category-hint") as HTMLElement;
    expect(hint.hidden).toBe(true);
    press("g");
    expect(hint.hidden).toBe(false);
    expect(hint.textContent).toBe("1 ambiguous item2 other0 none");
    press("2");
    expect(hint.hidden).toBe(true);
    await settle();
    expect(category.value).toBe("other");
    expect(mocked.decide).not.toHaveBeenCalled();
    press("1");
    await settle();
    expect(mocked.decide).toHaveBeenCalledWith(1, null, { take: "ana" }, null, "other");
    // Cleared once decided, so the next item's category is picked afresh.
    expect(category.value).toBe("");
    // G then 0 is none; G then a number past the list picks nothing and takes nothing.
    press("g");
    press("1");
    press("g");
    press("0");
    expect(category.value).toBe("");
    press("g");
    press("7");
    expect(category.value).toBe("");
    await settle();
    expect(mocked.decide).toHaveBeenCalledTimes(1);
  });

  it("reads the category's closed state: a quiet \"No category — G\" or the category chosen, in its direction", async () => {
    const { el } = await open([item(1, "label")], ["ambiguous item", "سياق ناقص"]);
    const category = q(el, "adj-category") as HTMLSelectElement;
    // The row: category, then the reason, then the keys.
    const row = category.closest(".adj-actions");
    expect([...(row?.querySelectorAll("[data-testid]") ?? [])].map((c) => (c as HTMLElement).dataset["testid"])).toEqual(["adj-category", "adj-category-hint", "adj-reason", "adj-hints"]);
    expect(category.selectedOptions[0]?.text).toBe("No category — G");
    expect(category.classList.contains("chosen")).toBe(false);
    expect(category.dir).toBe("ltr");
    category.value = "سياق ناقص";
    category.dispatchEvent(new Event("change"));
    expect(category.classList.contains("chosen")).toBe(true);
    expect(category.dir).toBe("rtl");
    expect(category.title).toBe("Category: سياق ناقص (G then its number)");
    // Every category reads in its own direction in the open list.
    expect([...category.options].every((o) => o.dir === "auto")).toBe(true);
  });

  it("hides the category when the project lists none, and G does nothing", async () => {
    const { el, press } = await open([item(1, "label")], []);
    const category = q(el, "adj-category") as HTMLSelectElement;
    expect(category.closest("[hidden]")).not.toBeNull();
    press("g");
    expect((q(el, "adj-category-hint") as HTMLElement).hidden).toBe(true);
    // The digit after it takes the answer as ever.
    press("1");
    await settle();
    expect(mocked.decide).toHaveBeenCalledWith(1, null, { take: "ana" }, null, null);
  });

  it("shows an answer that picked the trick as rejected, without a number, and never takes it", async () => {
    const disputed = item(1, "evidence");
    disputed.answers.push({ annotation_id: 3, annotator: "caro", counted: false, rejected: true, trick_failed: true, answer: { kind: "evidence", selected: [], no_evidence: false }, comment: null, in_study: false });
    const { el, press } = await open([disputed]);
    expect(q(el, "adj-rejected-caro")?.textContent).toContain("REJECTED");
    expect(q(el, "adj-answer-caro")?.querySelector("kbd")).toBeNull();
    press("3");
    await settle();
    expect(mocked.decide).not.toHaveBeenCalled();
  });

  it("says 1–9 take an answer only where an answer can be taken", async () => {
    const none = item(2, "evidence");
    for (const a of none.answers) a.counted = false;
    const { el, press } = await open([item(1, "evidence"), none]);
    expect(q(el, "adj-hints")?.textContent).toContain("1–9 take an answer");
    press("j");
    expect(q(el, "adj-hints")?.textContent).not.toContain("1–9");
    expect(q(el, "adj-hints")?.textContent).toContain("decide by hand");
  });

  it("gives no key to a flagged annotator's answer: 2 takes nothing when one answer counts", async () => {
    const thin = item(3, "evidence");
    thin.group = "thin";
    thin.share_agreeing = 1;
    const ben = thin.answers[1];
    if (ben) ben.counted = false;
    const { el, press } = await open([item(1, "evidence"), thin]);
    expect(q(el, "adj-thin-heading")).not.toBeNull();
    // The heading sits between the disagreement and the thin item.
    const rows = [...el.querySelectorAll("[data-testid^='adj-row-'], [data-testid='adj-thin-heading']")].map((r) => r.getAttribute("data-testid"));
    expect(rows).toEqual(["adj-row-1", "adj-thin-heading", "adj-row-3"]);
    press("j");
    expect(q(el, "adj-answer-ben")?.querySelector("kbd")).toBeNull();
    expect(q(el, "adj-answer-ana")?.querySelector("kbd")?.textContent).toBe("1");
    press("2");
    await settle();
    expect(mocked.decide).not.toHaveBeenCalled();
    press("1");
    await settle();
    expect(mocked.decide).toHaveBeenCalledWith(3, null, { take: "ana" }, null, null);
  });

  it("keeps a row clicked while the queue is read again", async () => {
    const items = [item(1, "evidence"), item(2, "evidence"), item(3, "evidence")];
    const { el } = await open(items);
    let answer: (value: QueueItem[]) => void = () => {};
    mocked.adjudicationQueue.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    screen?.shown?.();
    (q(el, "adj-row-3") as HTMLElement).click();
    answer(items);
    await settle();
    expect(q(el, "adj-row-3")?.classList.contains("current")).toBe(true);
  });

  it("shows a label item's evidence, numbered from one", async () => {
    const label = item(2, "label");
    label.candidates = [21, 22].map((id, i) => ({ sentence_id: id, document_id: "d2", sentence_index: i, text: `evidence ${id}` }));
    const { el } = await open([label]);
    expect(q(el, "adj-sentence-1")?.textContent).toContain("evidence 21");
    expect(q(el, "adj-sentence-1")?.textContent).toContain("chosen by nobody");
    // Numbered once (no "sentence 1 of its document"), and no key while 1–9 take answers.
    expect(el.textContent).not.toContain("of its document");
    expect(q(el, "adj-sentence-1")?.querySelector("kbd")).toBeNull();
    expect(el.textContent).not.toContain("sentence 0");
  });

  it("decides evidence by hand: H, toggle sentences, Enter; 0 is no evidence", async () => {
    const { el, press } = await open([item(1, "evidence")]);
    press("h");
    // Deciding by hand, the digits toggle sentences: they carry the keys, the answers none.
    expect(q(el, "adj-sentence-1")?.querySelector("kbd")?.textContent).toBe("1");
    expect(q(el, "adj-answer-ana")?.querySelector("kbd")).toBeNull();
    press("3");
    press("1");
    press("Enter");
    await settle();
    expect(mocked.decide).toHaveBeenLastCalledWith(1, null, { answer: { kind: "evidence", selected: [11, 13], no_evidence: false } }, null, null);
    press("H");
    press("0");
    press("Enter");
    await settle();
    expect(mocked.decide).toHaveBeenLastCalledWith(1, null, { answer: { kind: "evidence", selected: [], no_evidence: true } }, null, null);
  });

  it("picks a label by hand, moves with J/K and undoes with U", async () => {
    const decided: QueueItem = { ...item(2, "label"), decision: { lead: "lea", at: 0, reason: "x", category: null, taken_from: null, answer: { kind: "label", label: "FAILED" } } };
    const { el, press } = await open([item(1, "evidence"), decided]);
    press("j");
    expect(q(el, "adj-task")?.textContent).toBe("#102 · c2");
    expect(q(el, "adj-task")?.dataset["task"]).toBe("2");
    expect(q(el, "adj-row-2")?.textContent).toContain("#102");
    expect(q(el, "adj-decision")?.textContent).toMatch(/^lea set Failed on /);
    press("u");
    await settle();
    // The decision the screen showed is named, so one taken meanwhile elsewhere is not undone.
    expect(mocked.undoDecision).toHaveBeenCalledWith(2, 0, null);
    press("h");
    expect(q(el, "adj-labels")).not.toBeNull();
    press("2");
    await settle();
    expect(mocked.decide).toHaveBeenLastCalledWith(2, 0, { answer: { kind: "label", label: "REFUTED" } }, null, null);
    press("k");
    expect(q(el, "adj-task")?.dataset["task"]).toBe("1");
  });

  it("shows each chosen sentence whole, mirrored when it is right to left, with its text in a tooltip", async () => {
    const long = item(1, "evidence");
    long.candidates = [
      { sentence_id: 11, document_id: "d1", sentence_index: 0, text: "A very long first sentence ".repeat(8).trim() },
      { sentence_id: 12, document_id: "d1", sentence_index: 1, text: "جملة عربية طويلة عن القناة" },
      { sentence_id: 13, document_id: "d1", sentence_index: 2, text: "A third." },
    ];
    const first = long.answers[0];
    if (first) first.answer = { kind: "evidence", selected: [11, 12], no_evidence: false };
    const { el } = await open([long]);
    const rows = [...(q(el, "adj-value-ana")?.querySelectorAll("li") ?? [])];
    expect(rows.map((r) => r.querySelector(".adj-answer-text")?.textContent)).toEqual([long.candidates[0]?.text, long.candidates[1]?.text]);
    // Not cut by the screen: whole in the box (which scrolls) and in the tooltip.
    expect(rows.map((r) => r.querySelector(".adj-answer-text")?.getAttribute("title"))).toEqual([long.candidates[0]?.text, long.candidates[1]?.text]);
    expect(rows.map((r) => r.dir)).toEqual(["ltr", "rtl"]);
    // The box's "more — M" is no key cap (the cards' caps are the digits that take an
    // answer), and it sits under the sentences, after them, never over them.
    const more = q(el, "adj-more-ana");
    expect(more?.tagName).toBe("BUTTON");
    expect(more?.previousElementSibling).toBe(q(el, "adj-value-ana"));
    expect(more?.querySelector("kbd")).toBeNull();
    expect([...(q(el, "adj-answer-ana")?.querySelectorAll("kbd") ?? [])].map((k) => k.textContent)).toEqual(["1"]);
    // A candidate's number is a plain number, never a key cap: the digits take answers here.
    expect([...(q(el, "adj-value-ana")?.querySelectorAll(".adj-num") ?? [])].map((n) => [n.tagName, n.textContent])).toEqual([
      ["SPAN", "1"],
      ["SPAN", "2"],
    ]);
    expect(el.querySelectorAll(".adj-sentence kbd")).toHaveLength(0);
    expect([...el.querySelectorAll(".adj-sentence .adj-num")].map((n) => n.textContent)).toEqual(["1", "2", "3"]);
  });

  it("pages every cut answer on with M, back to the start once all are read, and marks what is cut", async () => {
    const { el, press } = await open([item(1, "evidence")]);
    const lists = ["ana", "ben"].map((who) => q(el, `adj-value-${who}`) as HTMLElement);
    // happy-dom lays nothing out: ana's sentences run to eight lines of 20px in a box of four.
    const sizes = [{ scrollHeight: 160 }, { scrollHeight: 80 }];
    lists.forEach((list, i) => {
      Object.defineProperty(list, "clientHeight", { value: 80, configurable: true });
      Object.defineProperty(list, "scrollHeight", { value: sizes[i]?.scrollHeight, configurable: true });
    });
    press("m");
    expect(lists.map((l) => l.scrollTop)).toEqual([60, 0]);
    expect(lists[0]?.parentElement?.classList.contains("cut")).toBe(true);
    press("m");
    expect(lists[0]?.scrollTop).toBe(80);
    expect(lists[0]?.parentElement?.classList.contains("cut")).toBe(false);
    press("M");
    expect(lists[0]?.scrollTop).toBe(0);
    expect(lists[0]?.parentElement?.classList.contains("cut")).toBe(true);
    // The box that scrolls keeps its "more" line; the one whose sentences fit has none.
    expect(lists.map((l) => l.parentElement?.classList.contains("overflows"))).toEqual([true, false]);
    expect(q(el, "adj-more-ana")?.textContent).toBe("more — M");
    // A click on "more" pages that box alone; at its end it says M goes back to the top.
    q(el, "adj-more-ana")?.click();
    expect(lists[0]?.scrollTop).toBe(60);
    q(el, "adj-more-ana")?.click();
    expect(lists[0]?.scrollTop).toBe(80);
    expect(q(el, "adj-more-ana")?.textContent).toBe("back to the top — M");
    q(el, "adj-more-ana")?.click();
    expect(lists[0]?.scrollTop).toBe(0);
  });

  it("grows the answers' boxes into the window's spare room, in whole lines, so what fits shows whole", () => {
    // 100 px spare, one row of cards, 20 px lines: five lines more at most.
    expect(grownHeights([{ client: 80, scroll: 200 }, { client: 80, scroll: 120 }, { client: 60, scroll: 60 }], 100, 1, 20)).toEqual([
      180,
      120,
      null,
    ]);
    // Two rows of cards share the room; none to spare leaves the boxes as they are.
    expect(grownHeights([{ client: 80, scroll: 200 }], 100, 2, 20)).toEqual([120]);
    expect(grownHeights([{ client: 80, scroll: 200 }], 10, 1, 20)).toEqual([null]);
  });

  it("shows an answer whole when the window has room for it, and keeps the fields in view", async () => {
    const { el } = await open([item(1, "evidence")]);
    const lists = ["ana", "ben"].map((who) => q(el, `adj-value-${who}`) as HTMLElement);
    const sizes = [200, 120];
    lists.forEach((list, i) => {
      Object.defineProperty(list, "clientHeight", { get: () => Math.min(parseFloat(list.style.maxHeight || "80"), sizes[i] ?? 0), configurable: true });
      Object.defineProperty(list, "scrollHeight", { value: sizes[i], configurable: true });
    });
    const actions = el.querySelector<HTMLElement>(".adj-actions") as HTMLElement;
    // The fields' row ends 520 px down a 640 px window: 108 px to spare after the margin.
    actions.getBoundingClientRect = () => ({ bottom: 520 }) as DOMRect;
    Object.defineProperty(window, "innerHeight", { value: 640, configurable: true });
    window.dispatchEvent(new Event("resize"));
    // ben's sentences fit in two lines more: whole, no "more"; ana's do not: four lines more
    // (a line kept for its "more"), and it says there is more.
    expect(lists.map((l) => l.style.maxHeight)).toEqual(["160px", "120px"]);
    expect(lists.map((l) => l.parentElement?.classList.contains("cut"))).toEqual([true, false]);
    expect(lists.map((l) => l.parentElement?.classList.contains("overflows"))).toEqual([true, false]);
    screen?.leave?.();
  });

  it("leaves the arrows to a focused answer's sentences, which scroll, and moves the queue otherwise", async () => {
    const { el, press } = await open([item(1, "evidence"), item(2, "label")]);
    const list = q(el, "adj-value-ana") as HTMLElement;
    list.focus();
    expect(press("ArrowDown")).toBe(false);
    expect(q(el, "adj-task")?.dataset["task"]).toBe("1");
    list.blur();
    expect(press("ArrowDown")).toBe(true);
    expect(q(el, "adj-task")?.dataset["task"]).toBe("2");
  });

  it("keeps the outcome and the decision whole in their tooltips, where a short window cuts them to a line", async () => {
    const decided: QueueItem = { ...item(2, "label"), decision: { lead: "lea", at: 0, reason: "a long reason", category: "other", taken_from: null, answer: { kind: "label", label: "FAILED" } } };
    const { el } = await open([decided]);
    expect(q(el, "adj-outcome")?.title).toBe(q(el, "adj-outcome")?.textContent);
    expect(q(el, "adj-decision")?.title).toMatch(/^lea set Failed on .+ \(other\) — “a long reason”$/);
  });

  it("says in a short subtitle, whole, what the queue's order is", async () => {
    const { el } = await open([item(1, "evidence")]);
    // Cut with an ellipsis at 1024×640 before (the walk of issue 36): now one line there,
    // free to wrap, with nothing held back in a tooltip.
    const lede = q(el, "adj-lede");
    expect(lede?.querySelector(".adj-lede-text")?.textContent).toBe("Most disagreement first; items with fewer than two counted answers last.");
    expect(lede?.querySelector("[title]")).toBeNull();
    expect(q(el, "adj-count")?.textContent).toBe("1 in the queue, 0 decided.");
  });

  it("lists the keys on ? and goes home on Esc", async () => {
    const { el, press, deps } = await open([]);
    expect(q(el, "adj-empty")).not.toBeNull();
    press("?");
    expect(q(el, "keys-help")).not.toBeNull();
    expect(q(el, "keys-help")?.textContent).toContain("the answers' sentences scroll on a page");
    press("Escape");
    expect(q(el, "keys-help")).toBeNull();
    press("Escape");
    expect(deps.home).toHaveBeenCalled();
  });
});
