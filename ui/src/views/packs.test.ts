import { describe, expect, it } from "vitest";
import type { Manifest, MergeOutcome, PackSummary } from "../ipc";
import { startView } from "./start";
import { dueDate, outcomeText, packAdvice, packBadgeText, pathsFrom, returnPanel, stateText } from "./packs";

const manifest: Manifest = {
  format: 1,
  pack_id: "p1",
  project_id: "proj",
  annotator: "ana",
  annotator_id: 2,
  kind: "evidence",
  tasks: [1, 2, 3],
  digest: "d",
  issued_at: Date.UTC(2026, 10, 16),
  expires_at: Date.UTC(2026, 10, 30, 23, 30),
};

const summary = (state: string): PackSummary => ({
  id: "p1",
  annotator: "ana",
  kind: "evidence",
  items: 3,
  created_at: 0,
  expires_at: 0,
  returned_at: null,
  merged: 0,
  state,
});

describe("packs", () => {
  it("says whose pack it is and when it is due, in UTC", () => {
    expect(dueDate(Date.UTC(2026, 10, 30, 23, 30))).toBe("30 Nov 2026");
    const before = Date.UTC(2026, 10, 20);
    const after = Date.UTC(2026, 11, 2);
    expect(packBadgeText(manifest, before)).toBe("Pack for ana · due 30 Nov 2026");
    expect(packBadgeText(manifest, after)).toBe("Pack for ana · expired 30 Nov 2026");
    expect(packAdvice(manifest, before)).toContain("Return the results by 30 Nov 2026");
    expect(packAdvice(manifest, after)).toContain("Ask the lead for a new pack");
  });

  it("takes pasted paths one per line", () => {
    expect(pathsFrom("  /a/ana.results.fdpack \r\n\n/b/my pack.fdpack\n")).toEqual([
      "/a/ana.results.fdpack",
      "/b/my pack.fdpack",
    ]);
    expect(pathsFrom("   \n")).toEqual([]);
  });

  it("says what merging each file did, or why it was refused", () => {
    const merged: MergeOutcome = {
      file: "/in/ana.results.fdpack",
      report: { file: "/in/ana.results.fdpack", pack_id: "p1", annotator: "ana", added: 2, already: 0, released: 1, problems: 1, late: 0, clamped: 0, refused: [] },
      error: null,
    };
    expect(outcomeText(merged)).toBe(
      "ana.results.fdpack: 2 answers from ana added, 0 already there, 1 unanswered item back in the pool, 1 reported problem added to your list",
    );
    const again: MergeOutcome = {
      ...merged,
      report: { file: merged.file, pack_id: "p1", annotator: "ana", added: 0, already: 2, released: 0, problems: 0, late: 0, clamped: 0, refused: [] },
    };
    expect(outcomeText(again)).toBe("ana.results.fdpack: 0 answers from ana added, 2 already there");
    const hostile: MergeOutcome = {
      ...merged,
      report: {
        file: merged.file,
        pack_id: "p1",
        annotator: "ana",
        added: 1,
        already: 0,
        released: 0,
        problems: 0,
        late: 0,
        clamped: 1,
        refused: [{ uuid: "u9", reason: "choose sentences or \"no evidence\", not both" }],
      },
    };
    expect(outcomeText(hostile)).toBe(
      'ana.results.fdpack: 1 answer from ana added, 0 already there, 1 with a time out of range brought into range; answer u9 refused: choose sentences or "no evidence", not both',
    );
    const refused: MergeOutcome = {
      file: "/in/x.fdpack",
      report: null,
      error: { code: "conflict", message: "/in/x.fdpack: refused, nothing was changed: it belongs to another project", location: null },
    };
    expect(outcomeText(refused)).toBe("x.fdpack: refused, nothing was changed: it belongs to another project");
    expect(outcomeText({ ...refused, error: { code: "forbidden", message: "only a lead merges", location: null } })).toBe(
      "x.fdpack: only a lead merges",
    );
  });

  it("names each state", () => {
    expect(stateText(summary("out"))).toBe("out");
    expect(stateText(summary("returned"))).toBe("returned");
    expect(stateText(summary("expired"))).toBe("expired (items back in the pool)");
  });

  it("offers Return results in a pack", () => {
    const el = returnPanel(manifest, () => undefined);
    expect(el.querySelector("[data-testid=return-results]")?.textContent).toBe("Return results");
    expect(el.textContent).toContain("30 Nov 2026");
  });

  it("marks a pack among the recent projects", () => {
    const noop = { open: () => {}, create: () => {}, openPath: () => {}, connect: () => {} };
    const el = startView(
      [
        { path: "/laptop/ana.fdpack", name: "demo", exists: true, person: null },
        { path: "/desk/demo.fdesk", name: "demo", exists: true, person: null },
      ],
      noop,
    );
    const items = el.querySelectorAll(".recent-item");
    expect(items[0]?.querySelector("[data-testid=recent-pack]")?.textContent).toBe("pack");
    expect(items[1]?.querySelector("[data-testid=recent-pack]")).toBeNull();
  });
});
