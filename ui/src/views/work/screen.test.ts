import { beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, api, type Ack, type Item } from "../../ipc";
import type { Drafts } from "./draft";
import { itemLabel, workScreen } from "./screen";

vi.mock("../../ipc", async (load) => {
  const real = await load<typeof import("../../ipc")>();
  return {
    ...real,
    api: {
      nextItem: vi.fn(),
      previousItem: vi.fn(),
      submitAnswer: vi.fn(),
      passage: vi.fn(),
      checkRefutation: vi.fn(),
      paces: vi.fn(),
      skipItem: vi.fn(),
      reportProblem: vi.fn(),
    },
  };
});

const mocked = vi.mocked(api);

function evidence(taskId: number, previous: Item["previous"] = null): Item {
  return {
    task_id: taskId,
    kind: "evidence",
    claim: `claim ${taskId}`,
    context: "some context",
    options: [1, 2, 3].map((n) => ({
      id: `o${taskId}-${n}`,
      text: `sentence ${n}`,
      pieces: [
        { text: "sentence", hit: true },
        { text: ` ${n}`, hit: false },
      ],
    })),
    counter_claim: null,
    text_b: null,
    evidence: [],
    evidence_state: null,
    guidelines: "Pick the evidence.",
    previous,
    pace: { done: taskId, total: 10, per_hour: null, minutes_left: null, more: false },
    shows: null,
    questions: [],
  };
}

const ack = (taskId: number): Ack => ({ ack: `ack-${taskId}`, task_id: taskId });
const settle = () => new Promise((r) => setTimeout(r, 0));
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`);

/**
 * The work screen with its paint wait under the test's control: `paint()` lets the item
 * on screen take keys (the real screen waits for two frames and a moment). With `manual`
 * false every item is ready as soon as it shows.
 */
async function open(kind: Item["kind"] = "evidence", options: { manual?: boolean; drafts?: Drafts; pack?: boolean } = {}) {
  const home = vi.fn();
  const fail = vi.fn();
  const waiting: (() => void)[] = [];
  const whenReady = (done: () => void): void => {
    if (options.manual) waiting.push(done);
    else done();
  };
  const screen = workScreen(kind, { home, fail, whenReady, drafts: options.drafts, pack: options.pack });
  document.body.replaceChildren(screen.el);
  screen.shown?.();
  await settle();
  const press = (key: string) => screen.onKey?.(new KeyboardEvent("keydown", { key }));
  const paint = () => waiting.splice(0).forEach((done) => done());
  return { screen, el: screen.el, press, home, fail, paint };
}

beforeEach(() => {
  vi.resetAllMocks();
});

describe("work screen", () => {
  it("submits the chosen options with the time spent, then shows the next item", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(2), reason: null });
    mocked.submitAnswer.mockResolvedValue(ack(1));
    const { el, press } = await open();
    expect(q(el, "item-claim")?.textContent).toBe("claim 1");
    // Each sentence is a Tab stop, and user text takes its direction from its own letters.
    expect(q(el, "option-1")?.getAttribute("tabindex")).toBe("0");
    expect(q(el, "item-claim")?.getAttribute("dir")).toBe("auto");
    expect(q(el, "comment")?.getAttribute("dir")).toBe("auto");
    expect(el.querySelectorAll("mark.hit").length).toBe(3);
    press("2");
    press("3");
    expect(q(el, "option-2")?.getAttribute("aria-checked")).toBe("true");
    press("Enter");
    await settle();
    const sent = mocked.submitAnswer.mock.calls[0]?.[0];
    expect(sent).toMatchObject({ task_id: 1, selected: ["o1-2", "o1-3"], no_evidence: false, text: null, label: null });
    expect(typeof sent?.duration_ms).toBe("number");
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("2");
    expect(q(el, "saved-indicator")?.textContent).toContain("Saved");
    expect(q(el, "saved-indicator")?.dataset["task"]).toBe("1");
    expect(q(el, "option-2")?.getAttribute("aria-checked")).toBe("false");
  });

  it("drops keys pressed before the next item has painted, and says so", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(2), reason: null });
    let release: (a: Ack) => void = () => {};
    mocked.submitAnswer.mockReturnValueOnce(new Promise((r) => (release = r)));
    const { el, press, paint } = await open("evidence", { manual: true });
    // The first item is not painted yet: its keys are dropped too.
    press("1");
    expect(q(el, "option-1")?.getAttribute("aria-checked")).toBe("false");
    expect(el.dataset["ready"]).toBe("false");
    paint();
    expect(el.dataset["ready"]).toBe("true");
    press("0");
    press("Enter");
    // While saving, and after the next item arrived but before it painted: dropped.
    press("3");
    release(ack(1));
    await settle();
    await settle();
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("2");
    press("Enter");
    press("2");
    expect(mocked.submitAnswer).toHaveBeenCalledTimes(1);
    expect(mocked.submitAnswer.mock.calls[0]?.[0]).toMatchObject({ selected: [], no_evidence: true });
    expect(q(el, "option-3")?.getAttribute("aria-checked")).toBe("false");
    expect(q(el, "option-2")?.getAttribute("aria-checked")).toBe("false");
    paint();
    expect(q(el, "keys-ignored")?.textContent).toMatch(/3 keys pressed before this item showed were ignored/);
    press("2");
    expect(q(el, "option-2")?.getAttribute("aria-checked")).toBe("true");
  });

  it("drops the second click of a double-click on Submit or Skip: it lands on the next item", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(2), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(3), reason: null });
    mocked.submitAnswer.mockResolvedValue(ack(1));
    mocked.skipItem.mockResolvedValue(true);
    const { el, press, paint } = await open("evidence", { manual: true });
    paint();
    press("1");
    const submit = q(el, "submit") as HTMLElement;
    submit.click();
    submit.click();
    await settle();
    await settle();
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("2");
    // Item 2 has not painted: a click now is the tail of the double-click.
    (q(el, "submit") as HTMLElement).click();
    (q(el, "skip") as HTMLElement).click();
    await settle();
    expect(mocked.submitAnswer).toHaveBeenCalledTimes(1);
    expect(mocked.skipItem).not.toHaveBeenCalled();
    expect(q(el, "status")?.textContent ?? "").not.toMatch(/no evidence/);
    // Once painted, Skip by a click works, once for a double-click.
    paint();
    const skip = q(el, "skip") as HTMLElement;
    skip.click();
    skip.click();
    await settle();
    await settle();
    expect(mocked.skipItem).toHaveBeenCalledTimes(1);
    expect(mocked.skipItem).toHaveBeenCalledWith(2);
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("3");
  });

  it("lets Esc leave an item that has not painted yet: it answers nothing", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    const { press, home } = await open("evidence", { manual: true });
    press("Escape");
    expect(home).toHaveBeenCalled();
  });

  it("keeps the selection and comment as a draft on Esc and restores them on the same item", async () => {
    const drafts: Drafts = new Map();
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(4), reason: null });
    const first = await open("evidence", { drafts });
    first.press("2");
    (q(first.el, "comment") as HTMLInputElement).value = "the date is off";
    first.press("Escape");
    expect(first.home).toHaveBeenCalled();
    first.screen.leave?.();
    expect(drafts.get(4)).toMatchObject({ selected: ["o4-2"], comment: "the date is off" });

    mocked.nextItem.mockResolvedValueOnce({ item: evidence(4), reason: null });
    const again = await open("evidence", { drafts });
    expect(q(again.el, "option-2")?.getAttribute("aria-checked")).toBe("true");
    expect((q(again.el, "comment") as HTMLInputElement).value).toBe("the date is off");
    expect(q(again.el, "draft-restored")).not.toBeNull();
    mocked.submitAnswer.mockResolvedValueOnce(ack(4));
    mocked.nextItem.mockResolvedValueOnce({ item: null, reason: "all done" });
    mocked.paces.mockResolvedValue([{ kind: "evidence", pace: { done: 5, total: 5, per_hour: null, minutes_left: null, more: false } }]);
    again.press("Enter");
    await settle();
    await settle();
    expect(drafts.has(4)).toBe(false);
    // The count after the last item is the backend's, not the last item's "4 of 5".
    expect(q(again.el, "progress-done")?.textContent).toBe("5");
  });

  it("keeps a written refutation and a chosen label as drafts too", async () => {
    const drafts: Drafts = new Map();
    const refute: Item = { ...evidence(7), kind: "refute", options: [] };
    mocked.checkRefutation.mockResolvedValue([{ kind: "length", passed: true, message: "ok" }]);
    mocked.nextItem.mockResolvedValueOnce({ item: refute, reason: null });
    const writing = await open("refute", { drafts });
    (q(writing.el, "refute-input") as HTMLInputElement).value = "claim 70";
    writing.screen.leave?.();
    expect(drafts.get(7)).toMatchObject({ text: "claim 70" });
    mocked.nextItem.mockResolvedValueOnce({ item: refute, reason: null });
    const back = await open("refute", { drafts });
    expect((q(back.el, "refute-input") as HTMLInputElement).value).toBe("claim 70");

    const label: Item = { ...evidence(8), kind: "label", options: [] };
    mocked.nextItem.mockResolvedValueOnce({ item: label, reason: null });
    const labelling = await open("label", { drafts });
    labelling.press("3");
    labelling.screen.leave?.();
    mocked.nextItem.mockResolvedValueOnce({ item: label, reason: null });
    const again = await open("label", { drafts });
    expect(q(again.el, "label-3")?.getAttribute("aria-pressed")).toBe("true");
  });

  it("keeps no draft of an untouched item", async () => {
    const drafts: Drafts = new Map();
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(6), reason: null });
    const { screen } = await open("evidence", { drafts });
    screen.leave?.();
    expect(drafts.size).toBe(0);
  });

  it("refuses to submit nothing and says why", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    const { el, press } = await open();
    expect(q(el, "submit")?.getAttribute("aria-disabled")).toBe("true");
    press("Enter");
    await settle();
    expect(mocked.submitAnswer).not.toHaveBeenCalled();
    expect(q(el, "status")?.textContent).toMatch(/no evidence/);
  });

  it("goes back to the last answered item with its answer selected", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(3), reason: null });
    const prev = { selected: ["o2-1"], no_evidence: false, text: null, label: null, comment: "unsure" };
    mocked.previousItem.mockResolvedValueOnce(evidence(2, prev));
    mocked.previousItem.mockResolvedValueOnce(null);
    const { el, press } = await open();
    press("p");
    await settle();
    // The item on screen was not answered yet, so it has no place in the history.
    expect(mocked.previousItem).toHaveBeenLastCalledWith("evidence", null);
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("2");
    expect(q(el, "editing-previous")).not.toBeNull();
    expect(q(el, "option-1")?.getAttribute("aria-checked")).toBe("true");
    expect((q(el, "comment") as HTMLInputElement).value).toBe("unsure");
    press("p");
    await settle();
    expect(mocked.previousItem).toHaveBeenLastCalledWith("evidence", 2);
    expect(q(el, "status")?.textContent).toMatch(/no earlier item/);
  });

  it("reports a problem: ! asks what is wrong, Enter is a new line, Ctrl+Enter sends it and the next item shows", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(2), reason: null });
    mocked.reportProblem.mockRejectedValueOnce(new ApiError({ code: "invalid_input", message: "say what the problem is: a few words are enough", location: null }));
    mocked.reportProblem.mockResolvedValueOnce(null);
    const { el, press } = await open("evidence");
    press("!");
    const text = el.querySelector<HTMLTextAreaElement>("[data-testid=report-text]");
    expect(text).not.toBeNull();
    const enterKey = (ctrlKey: boolean) => text?.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey, bubbles: true, cancelable: true }));
    const enter = () => enterKey(true);
    // Enter alone is the textarea's own: a new line, nothing sent.
    expect(enterKey(false)).toBe(true);
    await settle();
    expect(mocked.reportProblem).not.toHaveBeenCalled();
    expect(q(el, "report-dialog")?.textContent).toContain("Ctrl+Enter sends");
    enter();
    await settle();
    expect(q(el, "report-problem")?.textContent).toBe("Say what the problem is: a few words are enough.");
    if (text) text.value = "The sentences are cut off.";
    enter();
    await settle();
    await settle();
    expect(mocked.reportProblem).toHaveBeenLastCalledWith(1, "The sentences are cut off.");
    expect(q(el, "report-dialog")).toBeNull();
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("2");
    expect(q(el, "reported")).not.toBeNull();
  });

  it("reports from a pack too, saying the lead reads it once the pack is merged", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(2), reason: null });
    mocked.reportProblem.mockResolvedValueOnce(null);
    const { el, press } = await open("evidence", { pack: true });
    expect(q(el, "report")).not.toBeNull();
    press("!");
    const text = el.querySelector<HTMLTextAreaElement>("[data-testid=report-text]");
    if (text) text.value = "The claim says two things.";
    text?.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true, cancelable: true }));
    await settle();
    await settle();
    expect(mocked.reportProblem).toHaveBeenLastCalledWith(1, "The claim says two things.");
    expect(q(el, "reported")?.textContent).toMatch(/once your lead merges it/);
  });

  it("shows that an item of a pack was reported when it comes back", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: { ...evidence(1), reported: "Cut off." }, reason: null });
    const { el } = await open("evidence", { pack: true });
    expect(q(el, "reported-before")?.textContent).toMatch(/You reported a problem with this item: “Cut off\.”/);
  });

  it("skips: hands the item back, keeps its draft, shows the next item", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(2), reason: null });
    mocked.skipItem.mockResolvedValueOnce(true);
    const drafts: Drafts = new Map();
    const { el, press } = await open("evidence", { drafts });
    press("2");
    press("s");
    await settle();
    await settle();
    expect(mocked.skipItem).toHaveBeenCalledWith(1);
    expect(mocked.submitAnswer).not.toHaveBeenCalled();
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("2");
    expect(q(el, "skipped")).not.toBeNull();
    expect(drafts.has(1)).toBe(true);
  });

  it("shows why there is no item", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: null, reason: "waiting for the lead's review" });
    const { el, press, home } = await open("refute");
    expect(q(el, "no-item-reason")?.textContent).toBe("Waiting for the lead's review.");
    // No item, nothing to report: the button is not offered, and ! opens nothing.
    expect(q(el, "report")?.hidden).toBe(true);
    press("!");
    expect(q(el, "report-dialog")).toBeNull();
    press("Escape");
    expect(home).toHaveBeenCalled();
  });

  it("offers Report beside an item", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    const { el } = await open();
    expect(q(el, "report")?.hidden).toBe(false);
  });

  it("opens and closes the list of keys, with the guideline whole (cut to a line beside the passage)", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null });
    const { el, press, home } = await open();
    press("?");
    expect(q(el, "keys-help")?.textContent).toContain("1–3");
    expect(q(el, "help-guideline")?.textContent).toContain("Pick the evidence.");
    press("Escape");
    expect(q(el, "keys-help")).toBeNull();
    expect(home).not.toHaveBeenCalled();
  });

  it("shows the guideline whole on M where the layout cuts it, and the next item starts cut again", async () => {
    mocked.nextItem.mockResolvedValueOnce({ item: evidence(1), reason: null }).mockResolvedValueOnce({ item: evidence(2), reason: null });
    mocked.submitAnswer.mockResolvedValue(ack(1));
    mocked.passage.mockResolvedValue({ title: "Doc", sentences: [{ text: "sentence 1", hit: true }] });
    const { el, press } = await open();
    const guideline = () => q(el, "guidelines");
    // As beside the passage in a short window: the text wider than its one line.
    const cut = () => {
      const words = guideline()?.querySelector(".guidelines-text");
      if (!words) throw new Error("no guideline");
      Object.defineProperty(words, "clientWidth", { value: 300, configurable: true });
      Object.defineProperty(words, "scrollWidth", { value: 900, configurable: true });
    };
    cut();
    press("d");
    await settle();
    expect(guideline()?.classList.contains("cut")).toBe(true);
    press("m");
    expect(guideline()?.classList.contains("whole")).toBe(true);
    press("M");
    expect(guideline()?.classList.contains("whole")).toBe(false);
    press("m");
    press("1");
    press("Enter");
    await settle();
    await settle();
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("2");
    expect(guideline()?.classList.contains("whole")).toBe(false);
  });

  it("shows the backend's reason when it refuses a refutation", async () => {
    const item: Item = { ...evidence(5), kind: "refute", options: [] };
    mocked.nextItem.mockResolvedValueOnce({ item, reason: null });
    mocked.checkRefutation.mockResolvedValue([{ kind: "length", passed: true, message: "ok" }]);
    mocked.submitAnswer.mockRejectedValueOnce(
      new ApiError({ code: "check_failed", message: "Only a negation was added", location: null }),
    );
    const { el, press, fail } = await open("refute");
    await settle();
    expect(q(el, "check-length")?.dataset["passed"]).toBe("true");
    press("Enter");
    await settle();
    await settle();
    expect(mocked.submitAnswer.mock.calls[0]?.[0]).toMatchObject({ task_id: 5, text: "claim 5" });
    expect(q(el, "refute-error")?.textContent).toContain("Only a negation was added");
    expect(fail).not.toHaveBeenCalled();
    expect(q(el, "item-task-id")?.dataset["task"]).toBe("5");
  });
});

describe("item label", () => {
  it("shows no task number, a lead's or an annotator's, and keeps it for the tests", () => {
    const lead = itemLabel(29);
    expect([lead.textContent, lead.dataset["task"]]).toEqual(["", "29"]);
    const own = itemLabel(93810275512841);
    expect([own.textContent, own.dataset["task"]]).toEqual(["", "93810275512841"]);
  });
});
