import { describe, expect, it, vi } from "vitest";
import { api, type KindPace, type Overview } from "../ipc";
import { capOf, meaningOf } from "../keymap";
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
    const screen = homeScreen(overview, { name: "ana", role: "annotator", has_password: false }, { work: vi.fn(), fail: vi.fn(), changed: vi.fn() });
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
      const screen = homeScreen(overview, { name: "ana", role: "annotator", has_password: false }, { work: vi.fn(), fail: vi.fn(), changed: vi.fn() });
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

describe("the lead's home", () => {
  it("opens each lead's tool by the key drawn on its button, and the kinds still by number", () => {
    const deps = { work: vi.fn(), fail: vi.fn(), changed: vi.fn(), dashboard: vi.fn(), adjudicate: vi.fn(), exportGold: vi.fn(), claims: vi.fn(), lead: vi.fn() };
    const screen = homeScreen(overview, { name: "maria", role: "lead", has_password: true }, deps);
    const press = (key: string) => screen.onKey?.(new KeyboardEvent("keydown", { key }));
    const tools = [...screen.el.querySelectorAll<HTMLElement>("[data-testid=lead-tools] button")];
    // The walk of issue 36: the tools showed no keys. Each shows its own, as the kinds do.
    expect(tools.map((b) => [b.dataset["testid"], b.querySelector("kbd")?.textContent])).toEqual([
      ["open-dashboard", capOf("dashboard")],
      ["open-adjudicate", capOf("queue")],
      ["open-export", capOf("export")],
      ["open-claims", capOf("claims")],
      ["open-review", capOf("review")],
      ["open-flags", capOf("flags")],
      ["open-settings", capOf("settings")],
      ["open-issue-pack", capOf("issue")],
    ]);
    for (const b of tools) {
      const cap = b.querySelector("kbd")?.textContent ?? "";
      // Letters are drawn upper-case and pressed as they come.
      expect(press(cap.length === 1 ? cap.toLowerCase() : cap), cap).toBe(true);
    }
    expect(deps.dashboard).toHaveBeenCalledTimes(1);
    expect(deps.adjudicate).toHaveBeenCalledTimes(1);
    expect(deps.exportGold).toHaveBeenCalledTimes(1);
    expect(deps.claims).toHaveBeenCalledTimes(1);
    expect(deps.lead.mock.calls).toEqual([["review"], ["flags"], ["settings"], ["issue"]]);
    // No tool's key is one the home already answers to: the kinds' digits, O, N, T, / and Esc.
    const home = new Set(["number", "none", "open", "new", "team", "search", "escape"]);
    for (const b of tools) expect(home.has(meaningOf(b.querySelector("kbd")?.textContent ?? "") ?? "number")).toBe(false);
    expect(press("1")).toBe(true);
    expect(deps.work).toHaveBeenCalledWith("evidence");
    expect(deps.dashboard).toHaveBeenCalledTimes(1);
  });

  it("tells a lead with no password that anyone here can open their view, and leads to the password", () => {
    const deps = { work: vi.fn(), fail: vi.fn(), changed: vi.fn(), lead: vi.fn() };
    const open = homeScreen(overview, { name: "maria", role: "lead", has_password: false }, deps);
    const notice = open.el.querySelector<HTMLElement>("[data-testid=open-lead-notice]");
    expect(notice?.textContent).toMatch(/anyone at this computer can open/);
    // A notice, not a gate: the tools and the kinds still answer their keys.
    expect(open.onKey?.(new KeyboardEvent("keydown", { key: "1" }))).toBe(true);
    notice?.querySelector<HTMLButtonElement>("[data-testid=open-lead-set-password]")?.click();
    expect(deps.lead).toHaveBeenCalledWith("password");
    // With a password, and for an annotator, nothing is said.
    const closed = homeScreen(overview, { name: "maria", role: "lead", has_password: true }, deps);
    expect(closed.el.querySelector("[data-testid=open-lead-notice]")).toBeNull();
    const annotator = homeScreen(overview, { name: "ana", role: "annotator", has_password: false }, deps);
    expect(annotator.el.querySelector("[data-testid=open-lead-notice]")).toBeNull();
  });

  it("gives an annotator's home no lead's keys", () => {
    const deps = { work: vi.fn(), fail: vi.fn(), changed: vi.fn(), dashboard: vi.fn() };
    const screen = homeScreen(overview, { name: "ana", role: "annotator", has_password: false }, deps);
    expect(screen.onKey?.(new KeyboardEvent("keydown", { key: "b" }))).toBe(false);
    expect(deps.dashboard).not.toHaveBeenCalled();
  });
});
