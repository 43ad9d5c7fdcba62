import { describe, expect, it } from "vitest";
import { diffView, wordDiff } from "./diff";

const changed = (pieces: { text: string; changed: boolean }[]) => pieces.filter((p) => p.changed).map((p) => p.text.trim());

describe("word diff", () => {
  it("marks the one word that changed on each side and keeps the text whole", () => {
    const a = "Masks cut the spread of the virus by 80 percent.";
    const b = "Masks cut the spread of the virus by 10 percent.";
    const d = wordDiff(a, b);
    expect(changed(d.a)).toEqual(["80"]);
    expect(changed(d.b)).toEqual(["10"]);
    expect(d.a.map((p) => p.text).join("")).toBe(a);
    expect(d.b.map((p) => p.text).join("")).toBe(b);
  });

  it("marks inserted words only on the side that has them, ignoring case and punctuation", () => {
    const d = wordDiff("Vaccines are safe.", "vaccines are not safe");
    expect(changed(d.a)).toEqual([]);
    expect(changed(d.b)).toEqual(["not"]);
  });

  it("works for right-to-left text", () => {
    const d = wordDiff("اللقاح آمن للأطفال", "اللقاح خطير للأطفال");
    expect(changed(d.a)).toEqual(["آمن"]);
    expect(changed(d.b)).toEqual(["خطير"]);
  });

  it("renders marks as elements around text nodes only", () => {
    const root = document.createElement("p");
    const { b } = wordDiff("a b c.", "a x y.");
    root.append(...diffView(b, "added").map((c) => (typeof c === "string" ? document.createTextNode(c) : (c as Node))));
    expect(root.textContent).toBe("a x y.");
    // The full stop after the changed words is not part of the mark.
    expect([...root.querySelectorAll("mark.diff-added")].map((m) => m.textContent)).toEqual(["x y"]);
  });
});
