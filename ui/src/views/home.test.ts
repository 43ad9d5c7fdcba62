import { describe, expect, it } from "vitest";
import { kindForKey, progressText } from "./home";
import { personForKey } from "./people";

describe("home keys", () => {
  it("opens the kinds of work by number", () => {
    expect(kindForKey("1")).toBe("evidence");
    expect(kindForKey("4")).toBe("label");
    expect(kindForKey("5")).toBeNull();
    expect(kindForKey("e")).toBeNull();
  });

  it("picks people by number", () => {
    expect(personForKey("1", 2)).toBe(0);
    expect(personForKey("2", 2)).toBe(1);
    expect(personForKey("3", 2)).toBeNull();
    expect(personForKey("0", 2)).toBeNull();
  });

  it("says how far along a person is", () => {
    expect(progressText(null)).toBe("Nothing to do yet");
    expect(progressText({ done: 0, total: 12, per_hour: null, minutes_left: null, more: false })).toBe("12 to do");
    expect(progressText({ done: 12, total: 12, per_hour: null, minutes_left: null, more: false })).toBe("All 12 done");
    expect(progressText({ done: 5, total: 38, per_hour: null, minutes_left: null, more: false })).toBe("5 of 38 done");
    // Many items left: the count of them stops at 20, so only what is done is said.
    expect(progressText({ done: 0, total: 20, per_hour: null, minutes_left: null, more: true })).toBe("Items to do");
    expect(progressText({ done: 7, total: 27, per_hour: null, minutes_left: null, more: true })).toBe("7 done · more to do");
  });
});
