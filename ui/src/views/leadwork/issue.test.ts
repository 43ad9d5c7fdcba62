import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, type Overview, type PackIssued } from "../../ipc";
import { packKindName } from "../packs";
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
  it("names a pack's kinds as the packs table does: one wording for one choice", () => {
    mocked.annotators.mockResolvedValue([]);
    const s = issueScreen({ path: "/p/demo.fdesk" } as Overview, { home: vi.fn(), fail: vi.fn() });
    const kind = s.el.querySelector<HTMLSelectElement>('[data-testid="issue-kind"]');
    const offered = [...(kind?.options ?? [])].map((o) => [o.value, o.text]);
    expect(offered).toEqual([
      ["", packKindName(null)],
      ["evidence", packKindName("evidence")],
      ["verify", packKindName("verify")],
      ["label", packKindName("label")],
    ]);
    // The table's word for a pack of every kind was "all kinds", the form's this.
    expect(packKindName(null)).toBe("Evidence, verification and labels");
  });

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

  it("names one file and one short pack id, and writes the due day as the app writes days", async () => {
    mocked.annotators.mockResolvedValue([
      { id: 2, name: "ben", role: "annotator", tricks_seen: 0, tricks_failed: 0, trick_failure_rate: null, trick_failure_ci95: null, flagged: false, flag_override: null, counted: true },
    ]);
    const id = "9e10d2c0-24a3-4288-9d3d-42345e1f14ad";
    mocked.issuePack.mockResolvedValue({ pack_id: id, annotator: "ben", items: 3, expires_at: Date.UTC(2026, 11, 7), path: "/p/for-ben.fdpack" } as PackIssued);
    const s = issueScreen({ path: "/p/demo.fdesk" } as Overview, { home: vi.fn(), fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    const field = (name: string) => q(s.el, name) as HTMLInputElement;
    field("issue-out").value = "/p/for-ben.fdpack";
    field("issue-out").dispatchEvent(new Event("input"));
    // Typed as a date input writes it, and never left: issuing writes it back all the same.
    field("issue-due").value = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    (q(s.el, "issue-write") as HTMLElement).click();
    await settle();
    await settle();
    expect(field("issue-out").value).toBe(q(s.el, "issue-written")?.textContent);
    expect(q(s.el, "issue-pack-id")?.textContent).toBe("9e10d2c0");
    expect(q(s.el, "issue-pack-id")?.title).toBe(id);
    expect(field("issue-due").value).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
  });
});
