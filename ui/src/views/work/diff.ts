// Which words differ between an original claim and its counter-claim, so a one-word change
// is hard to miss. Words are compared case-insensitively, punctuation aside; the longest
// common subsequence of words is "same", the rest is marked on each side.

import { h, type Child } from "../../dom";

export interface DiffPiece {
  text: string;
  changed: boolean;
}

/** Words with the space or punctuation after them kept, so pieces join back to the text. */
function words(text: string): string[] {
  return text.match(/\s*\S+\s*/gu) ?? [];
}

function key(word: string): string {
  return word.trim().toLocaleLowerCase().replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, "");
}

/** Joins neighbouring pieces of the same kind. */
function merge(pieces: DiffPiece[]): DiffPiece[] {
  const out: DiffPiece[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && last.changed === p.changed) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

/** Each side's pieces, with the words not shared with the other side marked changed. */
export function wordDiff(a: string, b: string): { a: DiffPiece[]; b: DiffPiece[] } {
  const wa = words(a);
  const wb = words(b);
  const ka = wa.map(key);
  const kb = wb.map(key);
  // lcs[i][j]: length of the longest common subsequence of ka[i..] and kb[j..].
  const lcs = Array.from({ length: wa.length + 1 }, () => new Array<number>(wb.length + 1).fill(0));
  for (let i = wa.length - 1; i >= 0; i -= 1) {
    const row = lcs[i] ?? [];
    const below = lcs[i + 1] ?? [];
    for (let j = wb.length - 1; j >= 0; j -= 1) {
      row[j] = ka[i] === kb[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const pa: DiffPiece[] = [];
  const pb: DiffPiece[] = [];
  let i = 0;
  let j = 0;
  while (i < wa.length || j < wb.length) {
    if (i < wa.length && j < wb.length && ka[i] === kb[j]) {
      pa.push({ text: wa[i] ?? "", changed: false });
      pb.push({ text: wb[j] ?? "", changed: false });
      i += 1;
      j += 1;
    } else if (j < wb.length && (i >= wa.length || (lcs[i]?.[j + 1] ?? 0) >= (lcs[i + 1]?.[j] ?? 0))) {
      pb.push({ text: wb[j] ?? "", changed: true });
      j += 1;
    } else {
      pa.push({ text: wa[i] ?? "", changed: true });
      i += 1;
    }
  }
  return { a: merge(pa), b: merge(pb) };
}

/** The pieces as text nodes, the changed words in <mark class="diff">. */
export function diffView(pieces: DiffPiece[], side: "removed" | "added"): Child[] {
  return pieces.map((p) => {
    if (!p.changed) return p.text;
    // Spaces and punctuation around the words stay outside the mark, so only words are
    // highlighted (a piece of punctuation alone is marked as it is).
    const m = /^([\s\p{P}\p{S}]*)(.*?)([\s\p{P}\p{S}]*)$/su.exec(p.text);
    const [lead, core, trail] = m && m[2] ? [m[1], m[2], m[3]] : ["", p.text, ""];
    return h("span", {}, lead, h("mark", { class: `diff diff-${side}`, testid: `diff-${side}` }, core), trail);
  });
}
