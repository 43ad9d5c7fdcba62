// The words of a text a span question marks, as the backend counts them: a word is a run
// of letters or digits (Rust's `char::is_alphanumeric`: the Alphabetic property or a
// number), and offsets are Unicode code points, not the UTF-16 units a JavaScript string
// is indexed by, so an emoji before a word counts once. Marked words that touch (only
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

/** The words of `text` and the pieces it reads as, words and what lies between. */
export function tokenise(text: string): { words: Word[]; pieces: Piece[] } {
  const words: Word[] = [];
  const pieces: Piece[] = [];
  let run = "";
  let inWord = false;
  let start = 0;
  let at = 0;
  const close = (): void => {
    if (run === "") return;
    if (inWord) {
      pieces.push({ text: run, word: words.length });
      words.push({ start, end: at, text: run });
    } else {
      pieces.push({ text: run, word: null });
    }
    run = "";
  };
  for (const ch of text) {
    const isWord = WORD_CHAR.test(ch);
    if (isWord !== inWord) {
      close();
      inWord = isWord;
      start = at;
    }
    run += ch;
    at += 1;
  }
  close();
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
