import { describe, expect, it } from "vitest";
import { keyAction, keyHelp } from "./keys";

describe("keyAction", () => {
  it("maps digits to options on evidence items, 0 to no evidence", () => {
    expect(keyAction("evidence", "1", 6)).toEqual({ type: "toggle", index: 0 });
    expect(keyAction("evidence", "6", 6)).toEqual({ type: "toggle", index: 5 });
    expect(keyAction("evidence", "0", 6)).toEqual({ type: "no-evidence" });
  });

  it("ignores digits past the options shown", () => {
    expect(keyAction("evidence", "4", 3)).toBeNull();
    expect(keyAction("verify", "4", 3)).toBeNull();
    expect(keyAction("label", "0", 4)).toBeNull();
  });

  it("maps digits to choices on verify and label items", () => {
    expect(keyAction("verify", "3", 3)).toEqual({ type: "choose", index: 2 });
    expect(keyAction("label", "4", 4)).toEqual({ type: "choose", index: 3 });
  });

  it("shares submit, previous, comment, help and escape across kinds", () => {
    for (const kind of ["evidence", "refute", "verify", "label"] as const) {
      expect(keyAction(kind, "Enter", 3)).toEqual({ type: "submit" });
      expect(keyAction(kind, "p", 3)).toEqual({ type: "previous" });
      // Backspace after leaving a text field went back an item (issue 36).
      expect(keyAction(kind, "Backspace", 3)).toBeNull();
      expect(keyAction(kind, "S", 3)).toEqual({ type: "skip" });
      expect(keyAction(kind, "c", 3)).toEqual({ type: "comment" });
      expect(keyAction(kind, "C", 3)).toEqual({ type: "comment" });
      expect(keyAction(kind, "?", 3)).toEqual({ type: "help" });
      expect(keyAction(kind, "Escape", 3)).toEqual({ type: "escape" });
      expect(keyAction(kind, "m", 3)).toEqual({ type: "more" });
      expect(keyHelp(kind, 3)).toContainEqual(["M", "show more of a text cut short: the guideline"]);
    }
  });

  it("lists ! for a report, which reaches the lead from a pack too", () => {
    expect(keyHelp("evidence", 3).map(([k]) => k)).toContain("!");
  });

  it("has document, cursor and space keys for evidence only", () => {
    expect(keyAction("evidence", "D", 6)).toEqual({ type: "document" });
    expect(keyAction("evidence", "ArrowDown", 6)).toEqual({ type: "cursor", delta: 1 });
    expect(keyAction("evidence", "k", 6)).toEqual({ type: "cursor", delta: -1 });
    expect(keyAction("evidence", " ", 6)).toEqual({ type: "toggle-cursor" });
    expect(keyAction("label", "d", 4)).toBeNull();
    expect(keyAction("refute", "w", 0)).toEqual({ type: "write" });
    expect(keyAction("evidence", "q", 6)).toBeNull();
  });
});

describe("keyHelp", () => {
  it("lists the number range of the item and the shared keys", () => {
    const keys = keyHelp("evidence", 6).map(([k]) => k);
    expect(keys).toContain("1–6");
    expect(keys).toContain("Enter");
    expect(keys).toContain("P");
    expect(keys).not.toContain("Backspace");
    expect(keyHelp("verify", 3).slice(0, 3).map(([, what]) => what)).toEqual([
      "Contradicts",
      "Does not contradict",
      "Malformed",
    ]);
  });
});
