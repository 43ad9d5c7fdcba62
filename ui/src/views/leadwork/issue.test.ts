import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, type Overview, type PackIssued } from "../../ipc";
import { issueScreen } from "./issue";

vi.mock("../../ipc", async (load) => {
  const real = await load<typeof import("../../ipc")>();
  return { ...real, api: { issuePack: vi.fn(), annotators: vi.fn() } };
});

const mocked = vi.mocked(api);
const settle = () => new Promise((r) => setTimeout(r, 0));
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`);

beforeEach(() => vi.resetAllMocks());

describe("issue a pack", () => {
  it("issues one pack for a double-click, and shows it", async () => {
    mocked.annotators.mockResolvedValue([
      { id: 2, name: "ana", role: "annotator", tricks_seen: 0, tricks_failed: 0, trick_failure_rate: null, trick_failure_ci95: null, flagged: false, flag_override: null, counted: true },
    ]);
    let written: (p: PackIssued) => void = () => {};
    mocked.issuePack.mockReturnValue(new Promise((r) => (written = r)));
    const s = issueScreen({ path: "/p/demo.fdesk" } as Overview, { home: vi.fn(), fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    const write = q(s.el, "issue-write") as HTMLElement;
    write.click();
    write.click();
    written({ pack_id: "p-1", annotator: "ana", items: 50, expires_at: Date.UTC(2026, 11, 8), path: "/p/ana.fdpack" } as PackIssued);
    await settle();
    await settle();
    expect(mocked.issuePack).toHaveBeenCalledTimes(1);
    expect(q(s.el, "issue-done")).not.toBeNull();
    expect(q(s.el, "issue-error-out")?.textContent ?? "").toBe("");
  });
});
