// The work screens' keyboard: which key does what on each kind of item. Kept pure (a key
// name in, an action out) so the whole map is unit-tested, and the "?" list of keys is
// generated from the same table the handler uses.

import type { TaskKind } from "../../ipc";
import { judgementText, LABEL_CHOICES, VERDICT_CHOICES } from "../judgements";

export type KeyAction =
  | { type: "toggle"; index: number }
  | { type: "choose"; index: number }
  | { type: "no-evidence" }
  | { type: "cursor"; delta: number }
  | { type: "toggle-cursor" }
  | { type: "document" }
  | { type: "submit" }
  | { type: "previous" }
  | { type: "skip" }
  | { type: "comment" }
  | { type: "write" }
  | { type: "context" }
  | { type: "help" }
  | { type: "escape" };

/** The labels verification and labelling answer with, in key order (1, 2, ...). */
export const CHOICES: Partial<Record<TaskKind, { value: string; title: string }[]>> = {
  verify: VERDICT_CHOICES.map((value) => ({ value, title: judgementText(value) })),
  label: LABEL_CHOICES.map((value) => ({ value, title: judgementText(value) })),
};

const common: Record<string, KeyAction> = {
  Enter: { type: "submit" },
  Backspace: { type: "previous" },
  s: { type: "skip" },
  c: { type: "comment" },
  x: { type: "context" },
  "?": { type: "help" },
  Escape: { type: "escape" },
};

/**
 * The action for `key` (KeyboardEvent.key) on an item of `kind` showing `count` options
 * or choices; null when the key means nothing there.
 */
export function keyAction(kind: TaskKind, key: string, count: number): KeyAction | null {
  const k = key.length === 1 ? key.toLowerCase() : key;
  const digit = /^[0-9]$/.test(k) ? Number(k) : null;
  if (kind === "evidence") {
    if (digit === 0) return { type: "no-evidence" };
    if (digit !== null) return digit <= count ? { type: "toggle", index: digit - 1 } : null;
    if (k === "ArrowDown" || k === "j") return { type: "cursor", delta: 1 };
    if (k === "ArrowUp" || k === "k") return { type: "cursor", delta: -1 };
    if (k === " ") return { type: "toggle-cursor" };
    if (k === "d") return { type: "document" };
  } else if (kind === "refute") {
    if (k === "w") return { type: "write" };
  } else if (digit !== null) {
    return digit >= 1 && digit <= count ? { type: "choose", index: digit - 1 } : null;
  }
  return common[k] ?? null;
}

/** The list of keys shown by "?", per kind. */
export function keyHelp(kind: TaskKind, count: number): [string, string][] {
  const last = String(Math.max(count, 1));
  const specific: Record<TaskKind, [string, string][]> = {
    evidence: [
      [`1–${last}`, "select or unselect a sentence"],
      ["0", "no evidence among these sentences"],
      ["↑ ↓  or  J K", "move between sentences"],
      ["Space", "select the sentence under the cursor"],
      ["D", "show the sentence in its document"],
    ],
    refute: [["W", "write (back into the text field)"]],
    verify: (CHOICES.verify ?? []).map((c, i) => [String(i + 1), c.title]),
    label: (CHOICES.label ?? []).map((c, i) => [String(i + 1), c.value === "FAILED" ? "Failed: the claim is malformed" : c.title]),
  };
  return [
    ...specific[kind],
    ["Enter", "submit and go to the next item"],
    ["Backspace", "go back to your previous item"],
    ["S", "skip: hand the item back for others; it returns to you only when nothing new is left"],
    ["C", "write a comment"],
    ["X", "show or hide the context"],
    ["Esc", "leave a field, close a panel, or go home"],
    ["?", "show or hide this list"],
  ];
}
