// Command and event names cross IPC as strings: this test reads both sides and fails when
// they drift apart, so a renamed command cannot reach the app as a runtime "command not
// found".
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ui = join(__dirname, "..", "..");
const shell = join(ui, "..", "src-tauri", "src");

function rustFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rustFiles(path);
    return name.endsWith(".rs") ? [path] : [];
  });
}

function all(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((m) => m[1] ?? "").sort();
}

const client = readFileSync(join(ui, "src", "ipc", "index.ts"), "utf8");

describe("IPC names", () => {
  // Every command reaches the UI through a generated module: the api's operations
  // (operations.ts) and the shell's own commands (shell.ts), each from one declaration
  // that also makes the shell's handler list; Rust tests keep both files fresh.
  const generated = (file: string) => all(readFileSync(join(ui, "src", "ipc", file), "utf8"), /send<[^(]*>\("(\w+)"/g);
  const operations = generated("operations.ts");
  const own = generated("shell.ts");

  it("the UI calls no command by a name written by hand", () => {
    expect(all(client, /\b(?:call|invoke|send)(?:<[^(]*>)?\("(\w+)"/g)).toEqual([]);
    expect(client.match(/invoke</g)?.length).toBe(1);
  });

  it("every command the shell defines by hand is declared, and every declared one is defined", () => {
    const defined = rustFiles(join(shell, "commands"))
      .filter((f) => !f.endsWith("operations.rs"))
      .flatMap((f) => all(readFileSync(f, "utf8"), /#\[tauri::command(?:\(async\))?\]\s*pub (?:async )?fn (\w+)/g));
    expect(own.length).toBeGreaterThan(10);
    expect(defined.sort()).toEqual(own);
  });

  it("no command is both an operation and the shell's own", () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(operations.filter((name) => own.includes(name))).toEqual([]);
  });

  it("every event the UI listens to is emitted by the shell, and the other way round", () => {
    const emitted = [...new Set(rustFiles(shell).flatMap((f) => all(readFileSync(f, "utf8"), /\.emit\("([\w-]+)"/g)))].sort();
    const heard = [...new Set(all(client, /listen<[^(]*>\("([\w-]+)"/g))].sort();
    expect(emitted.length).toBeGreaterThan(2);
    expect(heard).toEqual(emitted);
  });
});
