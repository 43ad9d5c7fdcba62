// The work screens' keyboard: which key does what on each kind of item. Kept pure (a key
// name in, an action out) so the whole map is unit-tested, and the "?" list of keys is
// generated from the same table the handler uses.

import type { TaskKind } from "../../ipc";
import { digitOf, KEYMAP, keyRows, meaningOf, type Meaning } from "../../keymap";
import { judgementText, LABEL_CHOICES, VERDICT_CHOICES } from "../judgements";

export type KeyAction =
  | { type: "toggle"; index: number }
  | { type: "choose"; index: number }
  | { type: "no-evidence" }
  | { type: "cursor"; delta: number }
  | { type: "word"; delta: number }
  | { type: "none" }
  | { type: "toggle-cursor" }
  | { type: "document" }
  | { type: "submit" }
  | { type: "previous" }
  | { type: "skip" }
  | { type: "comment" }
  | { type: "write" }
  | { type: "context" }
  | { type: "more" }
  | { type: "help" }
  | { type: "report" }
  | { type: "escape" };

/** The labels verification and labelling answer with, in key order (1, 2, ...). */
export const CHOICES: Partial<Record<TaskKind, { value: string; title: string }[]>> = {
  verify: VERDICT_CHOICES.map((value) => ({ value, title: judgementText(value) })),
  label: LABEL_CHOICES.map((value) => ({ value, title: judgementText(value) })),
};

/** The actions every kind shares, by the key's one meaning (`keymap`). */
const COMMON: Partial<Record<Meaning, KeyAction>> = {
  submit: { type: "submit" },
  "previous-item": { type: "previous" },
  skip: { type: "skip" },
  comment: { type: "comment" },
  context: { type: "context" },
  more: { type: "more" },
  help: { type: "help" },
  report: { type: "report" },
  escape: { type: "escape" },
};

/**
 * The action for `key` (KeyboardEvent.key) on an item of `kind` showing `count` options
 * or choices; null when the key means nothing there.
 */
export function keyAction(kind: TaskKind, key: string, count: number): KeyAction | null {
  const digit = digitOf(key);
  const meaning = meaningOf(key);
  if (kind === "evidence") {
    if (digit === 0) return { type: "no-evidence" };
    if (digit !== null) return digit <= count ? { type: "toggle", index: digit - 1 } : null;
    if (meaning === "next") return { type: "cursor", delta: 1 };
    if (meaning === "back") return { type: "cursor", delta: -1 };
    if (meaning === "select") return { type: "toggle-cursor" };
    if (meaning === "document") return { type: "document" };
  } else if (kind === "refute") {
    if (meaning === "write") return { type: "write" };
  } else if (kind === "design") {
    // The digits answer the question under the cursor: `count` is its number of labels.
    if (digit === 0) return { type: "none" };
    if (digit !== null) return digit <= count ? { type: "choose", index: digit - 1 } : null;
    if (meaning === "next") return { type: "cursor", delta: 1 };
    if (meaning === "back") return { type: "cursor", delta: -1 };
    if (meaning === "word-next") return { type: "word", delta: 1 };
    if (meaning === "word-back") return { type: "word", delta: -1 };
    if (meaning === "select") return { type: "toggle-cursor" };
    if (meaning === "write") return { type: "write" };
  } else if (digit !== null) {
    return digit >= 1 && digit <= count ? { type: "choose", index: digit - 1 } : null;
  }
  return meaning ? (COMMON[meaning] ?? null) : null;
}

/** The list of keys shown by "?", per kind: the meanings of `keymap`, with what each acts
 * on. */
export function keyHelp(kind: TaskKind, count: number): [string, string][] {
  const numbered = (to: string): [string, string] => [`1–${Math.max(count, 1)}`, `${KEYMAP.number.does}: ${to}`];
  const choices = (kind === "verify" ? CHOICES.verify : CHOICES.label) ?? [];
  const specific: Record<TaskKind, [string, string][]> = {
    evidence: [
      numbered("select or unselect a sentence"),
      ...keyRows([["none", "no evidence among these sentences"], ["next", "the next sentence"], ["back", "the sentence before"], "select", "document"]),
    ],
    refute: keyRows(["write"]),
    verify: choices.map((c, i) => [String(i + 1), c.title]),
    label: choices.map((c, i) => [String(i + 1), c.value === "FAILED" ? "Failed: the claim is malformed" : c.title]),
    design: [
      ...keyRows([["next", "the next question"], ["back", "the question before"]]),
      numbered("a label of the question"),
      ...keyRows([
        ["none", "none of a multiple choice's labels"],
        "word-back",
        "word-next",
        ["select", "mark or unmark the word"],
        ["write", "a text question"],
      ]),
    ],
  };
  return [
    ...specific[kind],
    ...keyRows([
      ["submit", "submit and go to the next item"],
      "previous-item",
      ["skip", "it returns to you only when nothing new is left"],
      ["comment", "a comment on this item"],
      "context",
      // One line in the sheet, which fits 1024×640 whole with the guideline under it.
      ["more", "the guideline"],
      ["report", "it goes back to the pool"],
      "escape",
      "help",
    ]),
  ];
}
