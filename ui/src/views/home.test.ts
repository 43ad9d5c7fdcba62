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
    expect(progressText({ done: 0, total: 12, per_hour: null, minutes_left: null })).toBe("12 to do");
    expect(progressText({ done: 12, total: 12, per_hour: null, minutes_left: null })).toBe("All 12 done");
    expect(progressText({ done: 5, total: 38, per_hour: null, minutes_left: null })).toBe("5 of 38 done");
  });
});
