// The command and event names are written on both sides of IPC, in Rust and here; this
// test reads both and fails when they drift apart, so a renamed command cannot reach the
// app as a runtime "command not found".
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
  it("every command the UI calls is registered by the shell, and every registered one is called", () => {
    const main = readFileSync(join(shell, "main.rs"), "utf8");
    const handler = main.slice(main.indexOf("generate_handler!["), main.indexOf("])", main.indexOf("generate_handler![")));
    const registered = all(handler, /commands::\w+::(\w+)/g);
    const called = all(client, /call<[^(]*>\("(\w+)"/g);
    expect(registered.length).toBeGreaterThan(20);
    expect(called).toEqual(registered);
  });

  it("every command the shell defines is registered, and every registered one is defined", () => {
    const main = readFileSync(join(shell, "main.rs"), "utf8");
    const handler = main.slice(main.indexOf("generate_handler!["), main.indexOf("])", main.indexOf("generate_handler![")));
    const registered = all(handler, /commands::\w+::(\w+)/g);
    const defined = rustFiles(join(shell, "commands")).flatMap((f) =>
      all(readFileSync(f, "utf8"), /#\[tauri::command(?:\(async\))?\]\s*pub (?:async )?fn (\w+)/g),
    );
    expect(defined.sort()).toEqual(registered);
  });

  it("every event the UI listens to is emitted by the shell, and the other way round", () => {
    const emitted = [...new Set(rustFiles(shell).flatMap((f) => all(readFileSync(f, "utf8"), /\.emit\("([\w-]+)"/g)))].sort();
    const heard = [...new Set(all(client, /listen<[^(]*>\("([\w-]+)"/g))].sort();
    expect(emitted.length).toBeGreaterThan(2);
    expect(heard).toEqual(emitted);
  });
});
