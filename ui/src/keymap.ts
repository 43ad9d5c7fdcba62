// Every key the app answers to, each with one meaning on every screen: the handlers find a
// key's meaning here (`meaningOf`), and the "?" sheets and keys panels list it from here.
// A key that meant one thing on one screen and another elsewhere (X: context, export or
// leave out; C: comment or count; R: reason or reject) made a lead's habits misfire.

/** What a key does, the same wherever it does anything. */
export type Meaning =
  | "number"
  | "none"
  | "next"
  | "back"
  | "word-next"
  | "word-back"
  | "select"
  | "submit"
  | "escape"
  | "help"
  | "search"
  | "document"
  | "skip"
  | "comment"
  | "category"
  | "context"
  | "previous-item"
  | "write"
  | "undo"
  | "by-hand"
  | "export"
  | "accept"
  | "reject"
  | "include"
  | "leave-out"
  | "find"
  | "open"
  | "new"
  | "team"
  | "report"
  | "more"
  | "save"
  | "dashboard"
  | "queue"
  | "claims"
  | "review"
  | "flags"
  | "settings"
  | "issue";

interface Entry {
  /** KeyboardEvent.key values (letters lower-cased). */
  keys: readonly string[];
  /** As the key is drawn on screen. */
  cap: string;
  /** What it does, in a few words; a screen's list may say what it does it to. */
  does: string;
}

const DIGITS = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];

/** The one table. */
export const KEYMAP: Readonly<Record<Meaning, Entry>> = {
  number: { keys: DIGITS, cap: "1–9", does: "choose the numbered one" },
  none: { keys: ["0"], cap: "0", does: "none of them" },
  next: { keys: ["j", "ArrowDown"], cap: "J / ↓", does: "next in the list" },
  back: { keys: ["k", "ArrowUp"], cap: "K / ↑", does: "previous in the list" },
  // Along a line of words (a span question's text), as the words lie on screen: in a
  // right-to-left text → goes to the word before.
  "word-next": { keys: ["ArrowRight"], cap: "→", does: "the word to the right" },
  "word-back": { keys: ["ArrowLeft"], cap: "←", does: "the word to the left" },
  select: { keys: [" "], cap: "Space", does: "select the one under the cursor" },
  submit: { keys: ["Enter"], cap: "Enter", does: "submit or save" },
  escape: { keys: ["Escape"], cap: "Esc", does: "leave a field, close a panel, or go home" },
  help: { keys: ["?"], cap: "?", does: "show or hide the keys" },
  search: { keys: ["/"], cap: "/", does: "search claims and sentences" },
  document: { keys: ["d"], cap: "D", does: "show a sentence in its document" },
  skip: { keys: ["s"], cap: "S", does: "skip: hand the item back for others" },
  comment: { keys: ["c"], cap: "C", does: "write a comment, note or reason" },
  category: { keys: ["g"], cap: "G", does: "pick the disagreement's category" },
  context: { keys: ["x"], cap: "X", does: "show or hide the context" },
  "previous-item": { keys: ["p"], cap: "P", does: "go back to your previous item" },
  write: { keys: ["w"], cap: "W", does: "write (back into the text field)" },
  undo: { keys: ["u"], cap: "U", does: "undo the decision" },
  "by-hand": { keys: ["h"], cap: "H", does: "decide by hand" },
  export: { keys: ["e"], cap: "E", does: "export the gold data" },
  accept: { keys: ["a"], cap: "A", does: "accept" },
  reject: { keys: ["r"], cap: "R", does: "reject" },
  include: { keys: ["i"], cap: "I", does: "count their answers" },
  "leave-out": { keys: ["l"], cap: "L", does: "leave their answers out" },
  find: { keys: ["f"], cap: "F", does: "find in this list" },
  open: { keys: ["o"], cap: "O", does: "open a project" },
  new: { keys: ["n"], cap: "N", does: "make a new project" },
  team: { keys: ["t"], cap: "T", does: "connect to a team server" },
  report: { keys: ["!"], cap: "!", does: "report a problem with the item to your lead" },
  // A text cut short to keep the rest of a screen in view: the guideline beside the
  // passage, an answer's sentences in their card.
  more: { keys: ["m"], cap: "M", does: "show more of a text cut short" },
  // A chord, read by the settings screen and the report box themselves (`isSave`): the
  // app's keys ignore held modifiers, and in a box of several lines Enter is a new line.
  save: { keys: [], cap: "Ctrl+Enter", does: "save the settings, or send what you wrote" },
  // The lead's tools, from the lead's home (export is E, above). Keys no other screen
  // uses, so that each still means one thing everywhere: the letters left, and the marks
  // that name what they open (claims are #1234; "," opens settings in many apps).
  dashboard: { keys: ["b"], cap: "B", does: "open the agreement dashboard" },
  queue: { keys: ["q"], cap: "Q", does: "open the adjudication queue" },
  claims: { keys: ["#"], cap: "#", does: "open the list of claims" },
  review: { keys: ["v"], cap: "V", does: "open refutation review" },
  flags: { keys: ["z"], cap: "Z", does: "open the flagged annotators" },
  settings: { keys: [","], cap: ",", does: "open the project settings" },
  issue: { keys: ["y"], cap: "Y", does: "issue a pack" },
};

const BY_KEY: ReadonlyMap<string, Meaning> = new Map(
  (Object.entries(KEYMAP) as [Meaning, Entry][]).flatMap(([meaning, e]) => e.keys.map((k) => [k, meaning] as const)),
);

/** The key as the table holds it: a letter lower-cased, any other key as it is. */
export function keyName(key: string): string {
  return key.length === 1 ? key.toLowerCase() : key;
}

/** The meaning of a key (KeyboardEvent.key), or null for a key the app does not use. */
export function meaningOf(key: string): Meaning | null {
  return BY_KEY.get(keyName(key)) ?? null;
}

/** Whether a keydown is the "save" chord, Ctrl+Enter (Cmd+Enter on a Mac). */
export function isSave(ev: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey">): boolean {
  return (ev.ctrlKey || ev.metaKey) && ev.key === "Enter";
}

/** The digit a key is (0–9), or null. */
export function digitOf(key: string): number | null {
  return /^[0-9]$/.test(key) ? Number(key) : null;
}

/** The cap a meaning's key is drawn with. */
export function capOf(meaning: Meaning): string {
  return KEYMAP[meaning].cap;
}

/**
 * Rows of a keys sheet: each meaning's cap and what it does, with what it does it to on
 * that screen after a colon when `to` says so ("choose the numbered one: a label").
 */
export function keyRows(rows: readonly (Meaning | [Meaning, string])[]): [string, string][] {
  return rows.map((r) => {
    const [meaning, to] = typeof r === "string" ? [r, null] : r;
    const e = KEYMAP[meaning];
    return [e.cap, to ? `${e.does}: ${to}` : e.does];
  });
}
