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
    // Include and Leave out still say which decision stands.
    expect(s.el.querySelector(`[data-testid="flag-include-dan"]`)?.getAttribute("aria-pressed")).toBe("true");
  });

  it("names the button Include, as its key I, and offers it only where answers are not counted", async () => {
    vi.mocked(api.annotators).mockResolvedValue([
      person("dan", { flagged: true, tricks_failed: 3, trick_failure_rate: 1, counted: false }),
      person("ana"),
    ]);
    const s = flagsScreen({ home: vi.fn(), fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    const include = (name: string) => s.el.querySelector<HTMLButtonElement>(`[data-testid="flag-include-${name}"]`);
    expect(include("dan")?.textContent).toBe("Include I");
    expect(include("dan")?.disabled).toBe(false);
    expect(include("ana")?.disabled).toBe(true);
    // I on ana's row (second: flagged people come first) asks nothing of the project.
    s.onKey?.(new KeyboardEvent("keydown", { key: "j" }));
    s.onKey?.(new KeyboardEvent("keydown", { key: "i" }));
    await settle();
    expect(api.flagDecision).not.toHaveBeenCalled();
  });

  it("lays each person out on one line: fixed columns, and every cut cell whole in its tooltip", async () => {
    const name = "Maximiliana Bartholomew-Fitzgerald";
    vi.mocked(api.annotators).mockResolvedValue([
      person(name, { flagged: true, tricks_seen: 1234, tricks_failed: 1200, trick_failure_rate: 0.97, trick_failure_ci95: [0.44, 1] }),
    ]);
    const s = flagsScreen({ home: vi.fn(), fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    expect([...s.el.querySelectorAll("col")].map((c) => c.className)).toEqual(
      ["name", "seen", "failed", "rate", "standing", "decision"].map((c) => `flag-col-${c}`),
    );
    const row = s.el.querySelector(`[data-testid="flag-row-${name}"]`);
    expect(row?.querySelector("th")?.title).toBe(name);
    const rate = s.el.querySelector<HTMLElement>(`[data-testid="flag-rate-${name}"]`);
    expect(rate?.textContent).toBe("97% (44–100%)");
    expect(rate?.title).toBe("97%, 95% confidence interval (44–100%)");
    const standing = s.el.querySelector<HTMLElement>(`[data-testid="flag-standing-${name}"]`);
    expect(standing?.textContent).toBe("FLAGGED left out until you decide");
    expect(standing?.title).toBe("Flagged: left out until you decide");
    // The buttons in a box of their own: the cell stays a table cell.
    const buttons = s.el.querySelector(".flag-actions");
    expect(buttons?.tagName).toBe("DIV");
    expect(buttons?.parentElement?.tagName).toBe("TD");
    expect(buttons?.querySelectorAll("button")).toHaveLength(3);
  });

  it("spans the table with its note when there is no one", async () => {
    vi.mocked(api.annotators).mockResolvedValue([]);
    const s = flagsScreen({ home: vi.fn(), fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    expect(s.el.querySelector<HTMLTableCellElement>('[data-testid="flags-empty"]')?.colSpan).toBe(6);
  });
});
