import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, type MergeOutcome } from "../ipc";
import { packsPanel } from "./packs";

vi.mock("../ipc", async (load) => {
  const real = await load<typeof import("../ipc")>();
  return { ...real, api: { mergePacks: vi.fn(), packs: vi.fn() } };
});

const mocked = vi.mocked(api);
const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => vi.resetAllMocks());

describe("packs panel", () => {
  it("merges once for a double-click on Merge, and shows what that merge did", async () => {
    mocked.packs.mockResolvedValue([]);
    const first: MergeOutcome = {
      file: "/in/ana.results.fdpack",
      report: { file: "/in/ana.results.fdpack", pack_id: "p1", annotator: "ana", added: 2, already: 0, released: 0, problems: 0, late: 0, clamped: 0, refused: [] },
      error: null,
    };
    let merged: (o: MergeOutcome[]) => void = () => {};
    mocked.mergePacks.mockReturnValueOnce(new Promise((r) => (merged = r)));
    mocked.mergePacks.mockResolvedValue([{ ...first, report: first.report && { ...first.report, added: 0, already: 2 } }]);
    const panel = packsPanel(vi.fn(), vi.fn());
    document.body.replaceChildren(panel.el);
    (panel.el.querySelector('[data-testid="merge-path"]') as HTMLTextAreaElement).value = "/in/ana.results.fdpack";
    const button = panel.el.querySelector('[data-testid="merge-pasted"]') as HTMLElement;
    button.click();
    button.click();
    merged([first]);
    await settle();
    await settle();
    expect(mocked.mergePacks).toHaveBeenCalledTimes(1);
    expect(panel.el.querySelector('[data-testid="merge-outcome"]')?.textContent).toContain("2 answers from ana added");
  });

  it("says there are no packs in a sentence, and shows the table once there is one", async () => {
    mocked.packs.mockResolvedValueOnce([]);
    const panel = packsPanel(vi.fn(), vi.fn());
    panel.load();
    await settle();
    const table = panel.el.querySelector("table") as HTMLElement;
    const none = panel.el.querySelector('[data-testid="no-packs"]') as HTMLElement;
    expect([table.hidden, none.hidden]).toEqual([true, false]);
    mocked.packs.mockResolvedValueOnce([
      { id: "p1", annotator: "ana", kind: null, items: 3, created_at: 0, expires_at: 86_400_000, returned_at: null, merged: 0, state: "out" },
    ] as Awaited<ReturnType<typeof api.packs>>);
    panel.load();
    await settle();
    expect([table.hidden, none.hidden]).toEqual([false, true]);
    expect(panel.el.querySelectorAll('[data-testid="packs"] tr')).toHaveLength(1);
  });
});
