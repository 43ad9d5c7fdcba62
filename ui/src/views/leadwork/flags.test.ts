import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, type Annotator } from "../../ipc";
import { flagsScreen } from "./flags";

vi.mock("../../ipc", async (load) => {
  const real = await load<typeof import("../../ipc")>();
  return { ...real, api: { annotators: vi.fn(), flagDecision: vi.fn() } };
});

const settle = () => new Promise((r) => setTimeout(r, 0));

const person = (name: string, over: Partial<Annotator> = {}): Annotator => ({
  id: 1,
  name,
  role: "annotator",
  tricks_seen: 3,
  tricks_failed: 0,
  trick_failure_rate: 0,
  trick_failure_ci95: null,
  flagged: false,
  flag_override: null,
  counted: true,
  ...over,
});

beforeEach(() => vi.resetAllMocks());

describe("flag decisions", () => {
  it("offers Undo only where there is a decision to undo, and never shows it pressed", async () => {
    vi.mocked(api.annotators).mockResolvedValue([
      person("dan", { flagged: true, tricks_failed: 3, trick_failure_rate: 1, flag_override: "include" }),
      person("ana"),
    ]);
    const s = flagsScreen({ home: vi.fn(), fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    const undo = (name: string) => s.el.querySelector<HTMLButtonElement>(`[data-testid="flag-clear-${name}"]`);
    expect(undo("dan")?.disabled).toBe(false);
    expect(undo("ana")?.disabled).toBe(true);
    for (const name of ["dan", "ana"]) expect(undo(name)?.hasAttribute("aria-pressed")).toBe(false);
    // Count and Leave out still say which decision stands.
    expect(s.el.querySelector(`[data-testid="flag-include-dan"]`)?.getAttribute("aria-pressed")).toBe("true");
  });
});
