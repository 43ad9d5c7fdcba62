// The words of a text a span question marks, as the backend counts them: the shared
// tokenizer's words and numbers (letters and digits are Rust's `char::is_alphanumeric`:
// the Alphabetic property or a number), and offsets are Unicode code points, not the
// UTF-16 units a JavaScript string is indexed by, so an emoji before a word counts once. Marked words that touch (only
// spaces or punctuation between them) make one span, as `spans_of` makes them there.
// Pure: no DOM.

/** A word, its offsets `[start, end)` in code points. */
export interface Word {
  start: number;
  end: number;
  text: string;
}

/** The text in order: words and the stretches between them (`word` null). */
export interface Piece {
  text: string;
  word: number | null;
}

const WORD_CHAR = /^[\p{Alphabetic}\p{N}]$/u;
const ASCII_DIGIT = /^[0-9]$/;
/** Apostrophes and hyphens, straight and typographic, that join two parts of a word. */
const JOINER = /^['\u2019\-\u2010\u2011]$/u;

/** An accent written as its own character, which belongs to the letter before it. */
function isCombining(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0;
  return (
    (c >= 0x0300 && c <= 0x036f) ||
    (c >= 0x1ab0 && c <= 0x1aff) ||
    (c >= 0x1dc0 && c <= 0x1dff) ||
    (c >= 0x20d0 && c <= 0x20ff) ||
    (c >= 0xfe20 && c <= 0xfe2f)
  );
}

/**
 * The words of `text` and the pieces it reads as, words and what lies between. A word is
 * the backend's shared tokenizer's: letters and digits, an apostrophe or hyphen between
 * two of them keeping a word whole ("don't", "SARS-CoV-2"), a period or comma between two
 * digits a number ("3,000"), a separately written accent staying with its letter.
 */
export function tokenise(text: string): { words: Word[]; pieces: Piece[] } {
  const cps = [...text];
  const isWord = (i: number): boolean => i < cps.length && WORD_CHAR.test(cps[i] ?? "");
  const isDigit = (i: number): boolean => i >= 0 && i < cps.length && ASCII_DIGIT.test(cps[i] ?? "");
  const words: Word[] = [];
  const pieces: Piece[] = [];
  let gap = 0;
  let i = 0;
  while (i < cps.length) {
    if (!isWord(i)) {
      i += 1;
      continue;
    }
    const start = i;
    for (;;) {
      let prev = i;
      while (i < cps.length && (isWord(i) || isCombining(cps[i] ?? ""))) {
        if (isWord(i)) prev = i;
        i += 1;
      }
      const c = cps[i] ?? "";
      const joins = JOINER.test(c) ? isWord(i + 1) : (c === "." || c === ",") && isDigit(prev) && isDigit(i + 1);
      if (!joins) break;
      i += 1;
    }
    if (gap < start) pieces.push({ text: cps.slice(gap, start).join(""), word: null });
    const wordText = cps.slice(start, i).join("");
    pieces.push({ text: wordText, word: words.length });
    words.push({ start, end: i, text: wordText });
    gap = i;
  }
  if (gap < cps.length) pieces.push({ text: cps.slice(gap).join(""), word: null });
  return { words, pieces };
}

/** Which words the spans touch (a span over part of a word marks the word). */
export function marksFrom(words: Word[], spans: readonly (readonly [number, number])[]): boolean[] {
  return words.map((w) => spans.some(([s, e]) => s < w.end && w.start < e));
}

/** The spans covering the marked words: a run of marked words is one span. */
export function spansOf(words: Word[], marks: readonly boolean[]): [number, number][] {
  const out: [number, number][] = [];
  let run: [number, number] | null = null;
  words.forEach((w, i) => {
    if (marks[i]) {
      run = run ? [run[0], w.end] : [w.start, w.end];
    } else if (run) {
      out.push(run);
      run = null;
    }
  });
  if (run) out.push(run);
  return out;
}

/** The word cursor moved by `delta`, kept on the words (0 when there are none). */
export function moveWord(cursor: number, count: number, delta: number): number {
  if (count === 0) return 0;
  return Math.min(Math.max(cursor + delta, 0), count - 1);
}

/** The marks with word `i` marked or unmarked. */
export function toggleMark(marks: readonly boolean[], i: number): boolean[] {
  return marks.map((m, j) => (j === i ? !m : m));
}

/** The text a span covers, by its code-point offsets. */
export function spanText(text: string, [start, end]: readonly [number, number]): string {
  return [...text].slice(start, end).join("");
}
