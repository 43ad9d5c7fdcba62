import { describe, expect, it, vi } from "vitest";
import { api, type KindPace, type Overview } from "../ipc";
import { homeScreen, kindForKey } from "./home";
import { progressView } from "./work/chrome";
import { personForKey } from "./people";

vi.mock("../ipc", async (load) => {
  const real = await load<typeof import("../ipc")>();
  return { ...real, api: { paces: vi.fn() } };
});

const overview = { name: "demo", path: "/tmp/demo.fdesk", stats: null } as unknown as Overview;

describe("home keys", () => {
  it("opens the kinds of work by number", () => {
    expect(kindForKey("1")).toBe("evidence");
    expect(kindForKey("4")).toBe("label");
    expect(kindForKey("5")).toBe("design");
    expect(kindForKey("6")).toBeNull();
    expect(kindForKey("e")).toBeNull();
  });

  it("picks people by number", () => {
    expect(personForKey("1", 2)).toBe(0);
    expect(personForKey("2", 2)).toBe(1);
    expect(personForKey("3", 2)).toBeNull();
    expect(personForKey("0", 2)).toBeNull();
  });

  it("says how far along a person is in the words of the work screen's top bar", async () => {
    const paces: KindPace[] = [
      { kind: "evidence", pace: { done: 5, total: 38, per_hour: null, minutes_left: null, more: false } },
      { kind: "refute", pace: { done: 0, total: 12, per_hour: null, minutes_left: null, more: false } },
      { kind: "verify", pace: { done: 12, total: 12, per_hour: null, minutes_left: null, more: false } },
      { kind: "label", pace: { done: 7, total: 27, per_hour: null, minutes_left: null, more: true } },
    ];
    vi.mocked(api.paces).mockResolvedValue(paces);
    const screen = homeScreen(overview, { name: "ana", role: "annotator" }, { work: vi.fn(), fail: vi.fn(), changed: vi.fn() });
    screen.shown?.();
    await new Promise((r) => setTimeout(r, 0));
    const said = (kind: string) => screen.el.querySelector(`[data-testid="kind-done-${kind}"]`)?.textContent;
    expect(said("evidence")).toBe("5 of 38 done");
    expect(said("refute")).toBe("0 of 12 done");
    expect(said("verify")).toBe("12 of 12 done");
    expect(said("label")).toBe("7 done · more to do");
    for (const { kind, pace } of paces) {
      expect(progressView(pace).querySelector(".progress-count")?.textContent).toBe(said(kind));
    }
  });

  it("lists the project's own questions only where there is such work", async () => {
    const none = { done: 0, total: 0, per_hour: null, minutes_left: null, more: false };
    const card = async (design: KindPace["pace"]) => {
      vi.mocked(api.paces).mockResolvedValue([{ kind: "evidence", pace: none }, { kind: "design", pace: design }]);
      const screen = homeScreen(overview, { name: "ana", role: "annotator" }, { work: vi.fn(), fail: vi.fn(), changed: vi.fn() });
      const el = screen.el.querySelector<HTMLElement>('[data-testid="kind-design"]');
      expect(el?.hidden).toBe(true);
      screen.shown?.();
      await new Promise((r) => setTimeout(r, 0));
      return el;
    };
    expect((await card(none))?.hidden).toBe(true);
    const shown = await card({ ...none, total: 4 });
    expect(shown?.hidden).toBe(false);
    expect(shown?.textContent).toContain("Questions");
    // Evidence, with nothing to do yet, still shows (as it always has).
    expect((await card(none))?.parentElement?.querySelector<HTMLElement>('[data-testid="kind-evidence"]')?.hidden).toBe(false);
  });
});
