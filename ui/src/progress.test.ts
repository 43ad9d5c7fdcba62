import { describe, expect, it } from "vitest";
import type { Pace } from "./ipc";
import { progressParts, progressText } from "./progress";

const pace = (done: number, total: number, more = false): Pace => ({ done, total, more, per_hour: null, minutes_left: null });

describe("progress, in one wording", () => {
  it("says done out of total, at the start and at the end alike", () => {
    expect(progressText(pace(5, 38))).toBe("5 of 38 done");
    expect(progressText(pace(0, 12))).toBe("0 of 12 done");
    expect(progressText(pace(12, 12))).toBe("12 of 12 done");
  });

  it("says only what is done when more are left than are counted", () => {
    // The count of items left stops at 20: the total would tell the project's size.
    expect(progressText(pace(7, 27, true))).toBe("7 done · more to do");
    expect(progressText(pace(0, 20, true))).toBe("0 done · more to do");
  });

  it("says there is nothing to do without a pace or any item", () => {
    expect(progressText(null)).toBe("Nothing to do yet");
    expect(progressText(pace(0, 0))).toBe("Nothing to do yet");
  });

  it("marks the figures, grouped like every count on screen", () => {
    expect(progressParts(pace(1200, 1210))).toEqual([
      { text: "1\u202f200", figure: "done" },
      { text: " of " },
      { text: "1\u202f210", figure: "total" },
      { text: " done" },
    ]);
  });
});
