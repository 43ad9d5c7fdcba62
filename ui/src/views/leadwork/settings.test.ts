import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, type Settings } from "../../ipc";
import { categoryLines, highlightNote, settingsScreen } from "./settings";
import { settingsFixture } from "./settings.fixture";

vi.mock("../../ipc", async (load) => {
  const real = await load<typeof import("../../ipc")>();
  return { ...real, api: { settings: vi.fn(), saveSettings: vi.fn(), me: vi.fn(), setPassword: vi.fn(), rankingNow: vi.fn() } };
});

const mocked = vi.mocked(api);
const settle = () => new Promise((r) => setTimeout(r, 0));
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLInputElement>(`[data-testid="${id}"]`);

const SETTINGS: Settings = settingsFixture();

beforeEach(() => vi.resetAllMocks());

async function opened(): Promise<HTMLElement> {
  return (await openedScreen()).el;
}

async function openedScreen(toPassword = false, settings: Settings = SETTINGS) {
  mocked.settings.mockResolvedValue(structuredClone(settings));
  const home = vi.fn();
  const s = settingsScreen({ home, fail: vi.fn() }, toPassword);
  document.body.replaceChildren(s.el);
  s.shown?.();
  await settle();
  const press = (key: string) => s.onKey?.(new KeyboardEvent("keydown", { key }));
  return { el: s.el, home, press };
}

const type = (input: HTMLInputElement | null, value: string): void => {
  if (!input) throw new Error("no such field");
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
};

describe("the settings' Save", () => {
  it("looks and is unavailable while a field is wrong, like Submit on the work screens", async () => {
    const el = await opened();
    const save = q(el, "settings-save");
    expect(save?.classList.contains("not-ready")).toBe(false);
    type(q(el, "setting-overlap"), "two");
    expect(save?.classList.contains("not-ready")).toBe(true);
    expect(save?.getAttribute("aria-disabled")).toBe("true");
    // Pressed, it says why under the field and saves nothing.
    save?.click();
    await settle();
    expect(q(el, "setting-error-overlap")?.textContent).not.toBe("");
    expect(mocked.saveSettings).not.toHaveBeenCalled();
    type(q(el, "setting-overlap"), "2");
    expect(save?.classList.contains("not-ready")).toBe(false);
    expect(save?.getAttribute("aria-disabled")).toBe("false");
  });

  it("stays unavailable after the project refuses a field, until that field changes", async () => {
    const el = await opened();
    mocked.saveSettings.mockRejectedValueOnce(
      new ApiError({ code: "invalid_input", message: "the trick sentence needs {claim}", location: { file: "", line: 0, field: "trick_template" } }),
    );
    type(q(el, "setting-trick_template"), "It is false");
    const save = q(el, "settings-save");
    save?.click();
    await settle();
    await settle();
    expect(q(el, "setting-error-trick_template")?.textContent).toMatch(/needs \{claim\}/);
    expect(save?.classList.contains("not-ready")).toBe(true);
    type(q(el, "setting-trick_template"), "It is false that {claim}");
    expect(save?.classList.contains("not-ready")).toBe(false);
  });
});

describe("two leads saving at once", () => {
  it("sends what it read, and on a conflict merges again on the other lead's save", async () => {
    const el = await opened();
    // Between our read and our save another lead stored a new reservation time.
    const theirs = { ...structuredClone(SETTINGS), reservation_minutes: SETTINGS.reservation_minutes + 5 };
    mocked.settings.mockResolvedValueOnce(structuredClone(SETTINGS)).mockResolvedValueOnce(structuredClone(theirs));
    mocked.saveSettings
      .mockRejectedValueOnce(new ApiError({ code: "conflict", message: "the settings were changed meanwhile", location: null }))
      .mockImplementation((s) => Promise.resolve(s));
    type(q(el, "setting-overlap"), String(SETTINGS.overlap + 1));
    q(el, "settings-save")?.click();
    for (let i = 0; i < 6; i++) await settle();
    expect(mocked.saveSettings).toHaveBeenCalledTimes(2);
    const [first, second] = mocked.saveSettings.mock.calls;
    expect(first?.[1]).toEqual(SETTINGS);
    expect(first?.[0].overlap).toBe(SETTINGS.overlap + 1);
    expect(second?.[1]).toEqual(theirs);
    // Both changes stand: ours on top of theirs.
    expect(second?.[0].overlap).toBe(SETTINGS.overlap + 1);
    expect(second?.[0].reservation_minutes).toBe(SETTINGS.reservation_minutes + 5);
  });
});

describe("the disagreement categories", () => {
  it("are edited one a line, trimmed, blank lines dropped", async () => {
    expect(categoryLines(" vague claim \n\nslip\n")).toEqual(["vague claim", "slip"]);
    const el = await opened();
    const box = el.querySelector<HTMLTextAreaElement>('[data-testid="setting-disagreement_categories"]');
    expect(box?.value).toBe("ambiguous item\nother");
    mocked.saveSettings.mockImplementation((s) => Promise.resolve(s));
    type(box as unknown as HTMLInputElement, "ambiguous item\n  slip \n");
    q(el, "settings-save")?.click();
    await settle();
    await settle();
    expect(mocked.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ disagreement_categories: ["ambiguous item", "slip"] }), expect.anything());
  });
});

describe("marking the claim's words", () => {
  it("is off unless the lead turns it on, and says the marks point at the trick under either stance", async () => {
    for (const stance of ["supports", "supports_or_refutes"] as const) {
      const { el } = await openedScreen(false, { ...SETTINGS, evidence_stance: stance, highlight_claim_words: null });
      const box = el.querySelector<HTMLSelectElement>('[data-testid="setting-highlight_claim_words"]');
      expect([...(box?.options ?? [])].map((o) => o.value)).toEqual(["off", "on"]);
      expect(box?.value).toBe("off");
      expect(q(el, "setting-note-highlight_claim_words")?.textContent).toMatch(/point at the trick/);
    }
    expect(highlightNote("off")).toMatch(/Off by default under either stance/);
    // Turned on, the lead is told what it costs under `supports` (and the other stance).
    expect(highlightNote("on")).toMatch(/easy to spot.*every claim word marked.*with none/);
  });

  it("saves Off as the default (null) and On as true", async () => {
    const { el } = await openedScreen(false, { ...SETTINGS, highlight_claim_words: false });
    mocked.saveSettings.mockImplementation((s) => Promise.resolve(s));
    const box = el.querySelector<HTMLSelectElement>('[data-testid="setting-highlight_claim_words"]');
    expect(box?.value).toBe("off");
    if (box) box.value = "on";
    box?.dispatchEvent(new Event("change", { bubbles: true }));
    expect(q(el, "setting-note-highlight_claim_words")?.textContent).toMatch(/easy to spot/);
    q(el, "settings-save")?.click();
    await settle();
    await settle();
    expect(mocked.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ highlight_claim_words: true }), expect.anything());
  });
});

describe("leaving the settings", () => {
  it("leaves at once when nothing changed", async () => {
    const { home, press } = await openedScreen();
    expect(press("Escape")).toBe(true);
    expect(home).toHaveBeenCalledTimes(1);
  });

  it("leaves a field on Esc, then asks before dropping edits: Enter keeps them, Discard drops them", async () => {
    const { el, home, press } = await openedScreen();
    const overlap = q(el, "setting-overlap");
    overlap?.focus();
    type(overlap, "5");
    // Esc in the box leaves the box, not the screen.
    overlap?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(document.activeElement).not.toBe(overlap);
    expect(home).not.toHaveBeenCalled();
    // Esc on the screen asks; "Keep editing" is focused, so Enter keeps the edit.
    press("Escape");
    expect(home).not.toHaveBeenCalled();
    expect(q(el, "settings-discard")).not.toBeNull();
    await settle();
    expect(document.activeElement?.getAttribute("data-testid")).toBe("settings-keep");
    q(el, "settings-keep")?.click();
    expect(q(el, "settings-discard")).toBeNull();
    expect(q(el, "setting-overlap")?.value).toBe("5");
    // Esc closes the question too, keeping the edit.
    press("Escape");
    press("Escape");
    expect(q(el, "settings-discard")).toBeNull();
    expect(home).not.toHaveBeenCalled();
    // Home's button asks as Esc does; Discard leaves.
    q(el, "settings-home")?.click();
    q(el, "settings-discard-go")?.click();
    expect(home).toHaveBeenCalledTimes(1);
  });

  it("opens on the password box when the home's notice sent the lead there", async () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    const { el } = await openedScreen(true);
    expect(document.activeElement?.getAttribute("data-testid")).toBe("lead-password");
    expect(scrolled).toHaveBeenCalled();
    expect(q(el, "settings-password")?.contains(document.activeElement)).toBe(true);
  });
});
