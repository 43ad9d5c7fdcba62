import { describe, expect, it } from "vitest";
import { Stopwatch } from "./stopwatch";

describe("Stopwatch", () => {
  it("counts only the time the item was visible", () => {
    let now = 1000;
    const w = new Stopwatch(() => now);
    now = 4000;
    w.setVisible(false);
    now = 60_000;
    expect(w.elapsedMs()).toBe(3000);
    w.setVisible(true);
    now = 61_500;
    expect(w.elapsedMs()).toBe(4500);
  });

  it("starts stopped when the window is hidden, and ignores repeated signals", () => {
    let now = 0;
    const w = new Stopwatch(() => now, false);
    now = 500;
    w.setVisible(false);
    expect(w.elapsedMs()).toBe(0);
    w.setVisible(true);
    w.setVisible(true);
    now = 800;
    expect(w.elapsedMs()).toBe(300);
  });
});
