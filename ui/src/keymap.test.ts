import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KEYMAP, keyRows, meaningOf, type Meaning } from "./keymap";
import { keyHelp, keyAction } from "./views/work/keys";

const entries = Object.entries(KEYMAP) as [Meaning, (typeof KEYMAP)[Meaning]][];
const caps = new Set(entries.map(([, e]) => e.cap));

/** Every TypeScript source of the UI but the tests. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("the key table", () => {
  it("gives each key one meaning", () => {
    const seen = new Map<string, Meaning>();
    for (const [meaning, e] of entries) {
      for (const key of e.keys) {
        expect(seen.get(key), `${key} means both ${seen.get(key)} and ${meaning}`).toBeUndefined();
        seen.set(key, meaning);
      }
    }
    expect(new Set(entries.map(([, e]) => e.cap)).size).toBe(entries.length);
  });

  it("reads letters in either case, and knows no key it does not list", () => {
    expect(meaningOf("X")).toBe("context");
    expect(meaningOf("x")).toBe("context");
    expect(meaningOf("Backspace")).toBeNull();
    expect(meaningOf("Tab")).toBeNull();
  });

  it("is where every key drawn on a screen comes from", () => {
    const drawn = /h\("kbd", \{[^}]*\}, "([^"]+)"\)/g;
    const root = join(__dirname);
    const found: string[] = [];
    for (const file of sources(root)) {
      for (const m of readFileSync(file, "utf8").matchAll(drawn)) found.push(`${m[1]} (${file.slice(root.length + 1)})`);
    }
    expect(found.length).toBeGreaterThan(10);
    for (const f of found) expect(caps.has(f.split(" (")[0] ?? ""), `${f} is not in the key table`).toBe(true);
  });

  it("is read by every handler: none compares a key with a character of its own", () => {
    const own = /\b(key|ev\.key) [!=]== "([a-zA-Z?/ ]|Backspace)"/;
    const root = join(__dirname);
    for (const file of sources(root).filter((f) => !f.endsWith("keymap.ts"))) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => expect(own.test(line), `${file.slice(root.length + 1)}:${i + 1}: ${line.trim()}`).toBe(false));
    }
  });

  it("gives the work screens' keys the table's meaning, and their sheets its words", () => {
    const actionOf: Partial<Record<Meaning, string>> = {
      submit: "submit",
      "previous-item": "previous",
      skip: "skip",
      comment: "comment",
      context: "context",
      help: "help",
      report: "report",
      escape: "escape",
      next: "cursor",
      back: "cursor",
      select: "toggle-cursor",
      document: "document",
      more: "more",
      "word-next": "word",
      "word-back": "word",
    };
    for (const kind of ["evidence", "refute", "verify", "label", "design"] as const) {
      for (const [meaning, e] of entries) {
        for (const key of e.keys) {
          const action = keyAction(kind, key, 6);
          if (action === null || /^[0-9]$/.test(key)) continue;
          if (meaning === "write") expect(action.type).toBe("write");
          else expect(action.type, `${key} on ${kind}`).toBe(actionOf[meaning]);
        }
      }
      for (const [cap, what] of keyHelp(kind, 6)) {
        if (/^[0-9]/.test(cap)) continue;
        const entry = entries.find(([, e]) => e.cap === cap);
        expect(entry, `${cap} in the ${kind} sheet`).toBeDefined();
        expect(what.startsWith(entry?.[1].does ?? "?"), `${cap}: ${what}`).toBe(true);
      }
    }
  });

  it("writes a sheet's rows from the table, with what each acts on", () => {
    expect(keyRows(["undo", ["next", "the next person"]])).toEqual([
      ["U", "undo the decision"],
      ["J / ↓", "next in the list: the next person"],
    ]);
  });
});
