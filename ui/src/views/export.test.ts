import { describe, expect, it, vi } from "vitest";
import type { ExportPreview, Overview } from "../ipc";
import { countRows, defaultOutPath, dropReasons, exportScreen, loadSettings, parseSeed, parseSplits, renderPreview, saveSettings } from "./export";

// The screen's reads never answer here: these tests look at what it draws and its keys.
vi.mock("../ipc", async (load) => {
  const real = await load<typeof import("../ipc")>();
  return { ...real, api: new Proxy({}, { get: () => vi.fn(() => new Promise(() => {})) }) };
});

const preview: ExportPreview = {
  method: "majority",
  lines: 3,
  per_label: { SUPPORTED: 2, REFUTED: 1 },
  per_split: { train: 2, dev: 0, test: 1 },
  dropped: [
    { id: "c9", number: 9, claim: "x", reason: "no gold evidence" },
    { id: "c8", number: 8, claim: "y", reason: "no majority label" },
    { id: "c7", number: 7, claim: "z", reason: "no gold evidence" },
  ],
  counted_annotators: ["ana", "ben"],
  excluded_annotators: ["eve"],
  accuracy: {},
  mean_share_agreeing: 0.8,
  rejected_answers: 2,
  refutations: { accepted: 3, rejected: 1, superseded: 1 },
  split_warnings: ["split dev holds 0 of 3 lines (0%), asked for 15%: too few claim families to split as asked"],
  study_answers_in_gold: false,
  study_answers_apart: 0,
  under_annotated: [],
  include_under_annotated: false,
  trick_flag_threshold: 0.2,
  trick_min_seen: 3,
  evidence_stance: "supports",
};

describe("export helpers", () => {
  it("prefills the gold file beside the project", () => {
    expect(defaultOutPath("/data/covid.fdesk")).toBe("/data/covid.gold.jsonl");
    expect(defaultOutPath("/data/plain")).toBe("/data/plain.gold.jsonl");
    expect(defaultOutPath("http://127.0.0.1:4470")).toBe("");
  });

  it("reads splits and seeds, and says what is wrong", () => {
    expect(parseSplits("70, 15,15")).toEqual([70, 15, 15]);
    expect(parseSplits("70,x")).toMatch(/whole numbers/);
    expect(parseSplits("0,0")).toMatch(/above zero/);
    expect(parseSeed(" 42 ")).toBe(42);
    expect(parseSeed("-1")).toBeNull();
  });

  it("orders counts largest first with their shares, and groups dropped claims by reason", () => {
    expect(countRows(preview.per_split)).toEqual([
      { name: "train", n: 2, share: 2 / 3 },
      { name: "test", n: 1, share: 1 / 3 },
      { name: "dev", n: 0, share: 0 },
    ]);
    expect(dropReasons(preview)).toEqual([
      { reason: "no gold evidence", n: 2 },
      { reason: "no majority label", n: 1 },
    ]);
  });

  it("draws the preview: lines, who counted, each label and the dropped claims", () => {
    const root = document.createElement("div");
    root.append(...renderPreview(preview));
    expect(root.querySelector("[data-testid=export-lines]")?.textContent).toBe("3");
    expect(root.querySelector("[data-testid=export-annotators]")?.textContent).toContain("left out (flagged): eve");
    expect(root.querySelector("[data-testid=export-label-SUPPORTED]")?.textContent).toContain("2");
    expect(root.querySelector("[data-testid=export-dropped]")?.textContent).toContain("no majority label");
    expect(root.querySelector("[data-testid=export-split-warnings]")?.textContent).toContain("split dev holds 0 of 3");
    expect(root.querySelector("[data-testid=export-rejected]")?.textContent).toContain("2 answers rejected");
    expect(root.querySelector("[data-testid=export-refutations]")?.textContent).toContain("1 superseded");
  });
});

describe("export settings", () => {
  it("are remembered per project and survive only when well formed", () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    } as unknown as Storage;
    const settings = { format: "fever", method: "dawid-skene", splits: "80,10,10", seed: "7", flagged: true, out: "/data/gold.jsonl" };
    expect(loadSettings("/a.fdesk", storage)).toBeNull();
    saveSettings("/a.fdesk", settings, storage);
    expect(loadSettings("/a.fdesk", storage)).toEqual(settings);
    expect(loadSettings("/b.fdesk", storage)).toBeNull();
    store.set("factdesk.export:/c.fdesk", "{not json");
    expect(loadSettings("/c.fdesk", storage)).toBeNull();
  });
});

describe("the export screen", () => {
  it("shows the adjudication queue's key, Q, and opens the queue on it as home does", () => {
    const project = { name: "demo", path: "/tmp/demo.fdesk", stats: null } as unknown as Overview;
    const deps = { home: vi.fn(), adjudicate: vi.fn(), fail: vi.fn() };
    const screen = exportScreen(project, deps);
    expect(screen.el.querySelector("[data-testid=export-adjudicate] kbd")?.textContent).toBe("Q");
    expect(screen.onKey?.(new KeyboardEvent("keydown", { key: "q" }))).toBe(true);
    expect(deps.adjudicate).toHaveBeenCalledTimes(1);
    expect(deps.home).not.toHaveBeenCalled();
    expect(screen.onKey?.(new KeyboardEvent("keydown", { key: "Escape" }))).toBe(true);
    expect(deps.home).toHaveBeenCalledTimes(1);
  });
});
