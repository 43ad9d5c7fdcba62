import { describe, expect, it } from "vitest";
import { claimNumber, count, dayText, digitGroups, fileName, fixed, minutes, momentText, percent, plural, timeText } from "./format";

describe("format", () => {
  it("groups thousands", () => {
    expect(count(4086)).toBe("4\u202f086");
    expect(count(0)).toBe("0");
  });

  it("splits digits into groups of three from the right", () => {
    expect(digitGroups(0)).toEqual(["0"]);
    expect(digitGroups(999)).toEqual(["999"]);
    expect(digitGroups(4086)).toEqual(["4", "086"]);
    expect(digitGroups(1234567)).toEqual(["1", "234", "567"]);
    expect(digitGroups(-12345)).toEqual(["-12", "345"]);
    expect(digitGroups(1234567).join("")).toBe("1234567");
  });

  it("writes a negative figure with a true minus, not a hyphen", () => {
    expect(fixed(-0.0612, 3)).toBe("\u22120.061");
    expect(fixed(0.5, 3)).toBe("0.500");
    expect(fixed(-1, 2)).toBe("\u22121.00");
  });

  it("names a claim by its number", () => {
    expect(claimNumber(1234)).toBe("#1234");
  });

  it("pluralises", () => {
    expect(plural(1, "claim")).toBe("1 claim");
    expect(plural(9740, "claim")).toBe("9\u202f740 claims");
    expect(plural(2, "query", "queries")).toBe("2 queries");
  });

  it("takes the file name of a path", () => {
    expect(fileName("/a/b/demo.fdesk")).toBe("demo.fdesk");
    expect(fileName("C:\\data\\demo.fdesk")).toBe("demo.fdesk");
  });

  it("says durations as people do", () => {
    expect(minutes(0.4)).toBe("under a minute");
    expect(minutes(47.2)).toBe("47 min");
    expect(minutes(120)).toBe("2 h");
    expect(minutes(125)).toBe("2 h 5 min");
    expect(minutes(Number.NaN)).toBe("under a minute");
  });

  it("shows rates as percentages", () => {
    expect(percent(null)).toBe("—");
    expect(percent(0.2)).toBe("20%");
    expect(percent(1)).toBe("100%");
  });

  it("writes days and times one way everywhere (issue 36)", () => {
    const at = Date.UTC(2026, 10, 28, 15, 23, 52);
    expect(dayText(at, true)).toBe("28 Nov 2026");
    expect(timeText(at, true)).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(momentText(at)).toMatch(/^\d{1,2} \w{3} 2026, \d\d:\d\d$/);
  });
});
