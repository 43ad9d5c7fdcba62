import { describe, expect, it, vi } from "vitest";
import type { Item } from "../../ipc";
import { claimCard, guidelines, progressView } from "./chrome";

const item: Item = {
  task_id: 1,
  kind: "evidence",
  claim: "The harbour wall was finished in 1902.",
  context: "地元紙の記事",
  options: [],
  counter_claim: null,
    text_b: null,
  evidence: [],
  evidence_state: null,
  guidelines: "",
  previous: null,
  pace: { done: 0, total: 1, per_hour: null, minutes_left: null, more: false },
  shows: null,
  questions: [],
};

describe("the claim card's context", () => {
  it("records the annotator's choice only when they open or fold it, not the open it starts with", () => {
    const chose = vi.fn();
    const details = claimCard("Claim", item, true, chose).el.querySelector("details");
    if (!details) throw new Error("no context");
    // The "toggle" that setting `open` fires by itself is not a choice.
    details.dispatchEvent(new Event("toggle"));
    expect(chose).not.toHaveBeenCalled();
    details.open = false;
    details.dispatchEvent(new Event("toggle"));
    expect(chose).toHaveBeenCalledWith(false);
  });
});

describe("the guideline", () => {
  /** As the layout would have it: the text wider than its line, or not. */
  function laidOut(text: string, cut: boolean) {
    const view = guidelines(text);
    if (!view) throw new Error("no guideline");
    const words = view.el.querySelector(".guidelines-text");
    if (!words) throw new Error("no text");
    Object.defineProperty(words, "clientWidth", { value: 300, configurable: true });
    Object.defineProperty(words, "scrollWidth", { value: cut ? 900 : 300, configurable: true });
    view.measure();
    return view;
  }
  const more = (el: HTMLElement) => el.querySelector<HTMLButtonElement>('[data-testid="guidelines-more"]');

  it("shows the whole text when cut to a line, by M or its button, and a line again", () => {
    const view = laidOut("Select every sentence that supports the claim on its own.", true);
    expect(view.el.classList.contains("cut")).toBe(true);
    expect(more(view.el)?.getAttribute("aria-expanded")).toBe("false");
    expect(more(view.el)?.textContent).toBe("moreM");
    view.toggle();
    expect(view.el.classList.contains("whole")).toBe(true);
    expect(more(view.el)?.getAttribute("aria-expanded")).toBe("true");
    expect(more(view.el)?.textContent).toBe("lessM");
    more(view.el)?.click();
    expect(view.el.classList.contains("whole")).toBe(false);
    expect(more(view.el)?.getAttribute("aria-expanded")).toBe("false");
  });

  it("changes nothing where the guideline is whole already", () => {
    const view = laidOut("Pick.", false);
    expect(view.el.classList.contains("cut")).toBe(false);
    view.toggle();
    expect(view.el.classList.contains("whole")).toBe(false);
  });

  it("keeps the whole text in the tooltip, and mirrors its row with a right-to-left guideline", () => {
    const text = "اختر كل جملة تدعم الادعاء بمفردها.";
    const view = laidOut(text, true);
    expect(view.el.querySelector(".guidelines-text")?.getAttribute("title")).toBe(text);
    expect(view.el.dir).toBe("rtl");
    // The button's words stay "more M" inside the mirrored row.
    expect(more(view.el)?.dir).toBe("ltr");
  });

  it("is left out when the project has none", () => {
    expect(guidelines("")).toBeNull();
  });
});

describe("the work screen's progress", () => {
  it("says done of total in the shared words, the figures marked for the tests of the app", () => {
    const view = progressView({ done: 5, total: 18, per_hour: 60, minutes_left: 13, more: false });
    expect(view.querySelector(".progress-count")?.textContent).toBe("5 of 18 done");
    expect(view.querySelector('[data-testid="progress-done"]')?.textContent).toBe("5");
    expect(view.querySelector('[data-testid="progress-total"]')?.textContent).toBe("18");
    expect(view.querySelector('[data-testid="progress-rate"]')?.textContent).toBe("60 per hour · 13 min left");
  });

  it("says only what is done, with no bar, when more are left than counted", () => {
    const view = progressView({ done: 7, total: 27, per_hour: null, minutes_left: null, more: true });
    expect(view.querySelector(".progress-count")?.textContent).toBe("7 done · more to do");
    expect(view.querySelector("progress")).toBeNull();
    expect(view.querySelector('[data-testid="progress-total"]')).toBeNull();
  });
});
