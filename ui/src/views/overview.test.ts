import { describe, expect, it } from "vitest";
import type { Overview, Stats } from "../ipc";
import { overviewView } from "./overview";

const stats: Stats = {
  claims: 12345,
  root_claims: 12000,
  refutations: 345,
  documents: 40,
  sentences: 1200,
  candidates: 60000,
  tasks: 0,
  annotations: 0,
  annotators: 3,
};

const overview: Overview = {
  id: "p1",
  name: "<b>demo</b>",
  path: "/tmp/demo.fdesk",
  schema_version: 1,
  stats,
};

describe("overviewView", () => {
  it("shows each count as a plain integer under a stable test id", () => {
    const el = overviewView(overview);
    const text = (key: string) => el.querySelector(`[data-testid=count-${key}]`)?.textContent;
    expect(text("claims")).toBe("12345");
    expect(text("documents")).toBe("40");
    expect(text("sentences")).toBe("1200");
    expect(text("candidates")).toBe("60000");
    expect(text("tasks")).toBe("0");
    expect(text("annotators")).toBe("3");
    expect(text("annotations")).toBe("0");
    expect(el.textContent).toContain("12\u202f000 originals · 345 refutations");
  });

  it("renders the project name as text", () => {
    const el = overviewView(overview);
    expect(el.querySelector("[data-testid=project-name]")?.textContent).toBe("<b>demo</b>");
    expect(el.querySelector("b")).toBeNull();
  });

  it("hints at importing when there are no claims", () => {
    const empty = overviewView({ ...overview, stats: { ...stats, claims: 0 } });
    expect(empty.querySelector("[data-testid=empty-hint]")).not.toBeNull();
    expect(overviewView(overview).querySelector("[data-testid=empty-hint]")).toBeNull();
  });

  it("shows no count to an annotator, whose overview has none", () => {
    const el = overviewView({ ...overview, stats: null });
    expect(el.querySelector("[data-testid^=count-]")).toBeNull();
    expect(el.querySelector("[data-testid=no-counts]")?.textContent).toBe("The project's counts are the lead's.");
    expect(el.querySelector("[data-testid=empty-hint]")).toBeNull();
  });
});
