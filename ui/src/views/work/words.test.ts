import { describe, expect, it } from "vitest";
import { marksFrom, moveWord, spanText, spansOf, toggleMark, tokenise } from "./words";

describe("tokenise", () => {
  it("finds runs of letters and digits with their offsets, and keeps what lies between", () => {
    const { words, pieces } = tokenise("Masks cut spread by 53%.");
    expect(words.map((w) => [w.text, w.start, w.end])).toEqual([
      ["Masks", 0, 5],
      ["cut", 6, 9],
      ["spread", 10, 16],
      ["by", 17, 19],
      ["53", 20, 22],
    ]);
    expect(pieces.map((p) => p.text).join("")).toBe("Masks cut spread by 53%.");
    expect(pieces.filter((p) => p.word === null).map((p) => p.text)).toEqual([" ", " ", " ", " ", "%."]);
  });

  it("counts code points, not UTF-16 units: an emoji before a word counts once", () => {
    const text = "🦠 virus 𝐁 spreads";
    const { words } = tokenise(text);
    // "🦠" is two UTF-16 units but one code point; "𝐁" (U+1D401) is a letter outside the BMP.
    expect(words.map((w) => [w.text, w.start, w.end])).toEqual([
      ["virus", 2, 7],
      ["𝐁", 8, 9],
      ["spreads", 10, 17],
    ]);
    expect(text.indexOf("spreads")).toBe(12);
    expect(spanText(text, [10, 17])).toBe("spreads");
  });

  it("keeps Arabic words whole, their vowel marks and digits inside", () => {
    const text = "اللقاحُ آمنٌ، قال ٣ أطباء";
    const { words } = tokenise(text);
    expect(words.map((w) => w.text)).toEqual(["اللقاحُ", "آمنٌ", "قال", "٣", "أطباء"]);
    expect(words[1]).toEqual({ text: "آمنٌ", start: 8, end: 12 });
    expect(spanText(text, [words[1]?.start ?? 0, words[1]?.end ?? 0])).toBe("آمنٌ");
  });

  it("keeps words and numbers whole as the backend's tokenizer does", () => {
    const { words } = tokenise("Don't stop: SARS-CoV-2 hit 3,000 people, 2.5% - not 1990–2000.");
    expect(words.map((w) => w.text)).toEqual(["Don't", "stop", "SARS-CoV-2", "hit", "3,000", "people", "2.5", "not", "1990", "2000"]);
    // An accent written as its own character (NFD) stays with its letter.
    const nfd = "nai\u0308ve idea";
    expect(tokenise(nfd).words.map((w) => [w.start, w.end])).toEqual([
      [0, 6],
      [7, 11],
    ]);
  });

  it("has no words in a text of punctuation alone", () => {
    expect(tokenise("— ?!").words).toEqual([]);
    expect(tokenise("").pieces).toEqual([]);
  });
});

describe("marking words", () => {
  const { words } = tokenise("The vaccine is safe and it works");

  it("makes one span of marked words that touch, and one per run", () => {
    let marks = words.map(() => false);
    marks = toggleMark(marks, 1);
    marks = toggleMark(marks, 2);
    marks = toggleMark(marks, 3);
    marks = toggleMark(marks, 6);
    expect(spansOf(words, marks)).toEqual([
      [4, 19],
      [27, 32],
    ]);
    // Unmarking the middle word splits the span.
    expect(spansOf(words, toggleMark(marks, 2))).toEqual([
      [4, 11],
      [15, 19],
      [27, 32],
    ]);
    expect(spansOf(words, words.map(() => false))).toEqual([]);
  });

  it("reads spans back as marks: a span over part of a word marks the word", () => {
    expect(marksFrom(words, [[4, 19]])).toEqual([false, true, true, true, false, false, false]);
    expect(marksFrom(words, [[5, 6]])).toEqual([false, true, false, false, false, false, false]);
    expect(spansOf(words, marksFrom(words, [[4, 19], [27, 32]]))).toEqual([
      [4, 19],
      [27, 32],
    ]);
  });

  it("moves the word cursor within the words", () => {
    expect(moveWord(0, 7, 1)).toBe(1);
    expect(moveWord(0, 7, -1)).toBe(0);
    expect(moveWord(6, 7, 1)).toBe(6);
    expect(moveWord(3, 0, 1)).toBe(0);
  });
});
