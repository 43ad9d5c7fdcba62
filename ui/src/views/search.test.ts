import { describe, expect, it, vi } from "vitest";
import { api, type SearchHit } from "../ipc";
import { searchBox } from "./search";

vi.mock("../ipc", async (load) => {
  const real = await load<typeof import("../ipc")>();
  return { ...real, api: { search: vi.fn().mockResolvedValue([]) } };
});

const settle = () => new Promise((r) => setTimeout(r, 0));
const hit = (id: number, kind: SearchHit["kind"], ext_id: string): SearchHit => ({
  kind,
  id,
  reference: kind === "claim" ? `#${id}` : "",
  ext_id,
  text: `text ${id}`,
  document_id: kind === "sentence" ? 1 : null,
  score: 1,
});
const key = (el: Element, k: string) => el.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));

describe("search box", () => {
  it("selects the old query when focused again, and forgets it on reset", () => {
    const box = searchBox();
    document.body.replaceChildren(box.el);
    const input = box.el.querySelector("input") as HTMLInputElement;
    input.value = "lighthouse";
    box.focus();
    expect(document.activeElement).toBe(input);
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, "lighthouse".length]);
    box.reset();
    expect(input.value).toBe("");
  });

  it("goes through the results with the arrow keys and opens one with Enter, keeping the keys from the screen", async () => {
    vi.mocked(api.search).mockResolvedValueOnce([hit(7, "claim", "covid-0007"), hit(9, "sentence", "doc-3")]);
    const opened = vi.fn();
    const box = searchBox(opened);
    const outside = vi.fn();
    document.body.replaceChildren(box.el);
    document.addEventListener("keydown", outside);
    const input = box.el.querySelector("input") as HTMLInputElement;
    input.value = "mask";
    key(input, "Enter");
    await settle();
    const ids = [...box.el.querySelectorAll('[data-testid="search-hit-id"]')].map((e) => e.textContent);
    expect(ids).toEqual(["covid-0007", "in document doc-3"]);
    // A claim is named by its number; a sentence has none.
    const numbers = [...box.el.querySelectorAll('[data-testid="search-hit-number"]')].map((e) => e.textContent);
    expect(numbers).toEqual(["#7"]);
    key(input, "ArrowDown");
    expect(document.activeElement?.getAttribute("data-index")).toBe("0");
    key(document.activeElement as Element, "ArrowDown");
    expect(document.activeElement?.getAttribute("aria-selected")).toBe("true");
    expect(document.activeElement?.getAttribute("data-index")).toBe("1");
    key(document.activeElement as Element, "ArrowUp");
    key(document.activeElement as Element, "Enter");
    expect(opened).toHaveBeenCalledWith(expect.objectContaining({ id: 7, kind: "claim" }));
    // The keys among the results never reached the screen's handler.
    expect(outside.mock.calls.map(([ev]) => (ev as KeyboardEvent).target)).toEqual([input, input]);
    expect(box.el.querySelector(".search-results.open")).toBeNull();
    document.removeEventListener("keydown", outside);
  });

  it("names an annotator's claim hit by their own reference, never by a number", async () => {
    // An annotator's hits carry no score (it moved with others' refutations).
    const anas: SearchHit = { ...hit(0, "claim", ""), reference: "c3fa81b20d4e", score: null };
    vi.mocked(api.search).mockResolvedValueOnce([anas]);
    const opened = vi.fn();
    const box = searchBox(opened);
    document.body.replaceChildren(box.el);
    const input = box.el.querySelector("input") as HTMLInputElement;
    input.value = "mask";
    key(input, "Enter");
    await settle();
    const numbers = [...box.el.querySelectorAll('[data-testid="search-hit-number"]')].map((e) => e.textContent);
    expect(numbers).toEqual(["c3fa81b20d4e"]);
    expect(box.el.textContent).not.toContain("#0");
    key(input, "ArrowDown");
    key(document.activeElement as Element, "Enter");
    expect(opened).toHaveBeenCalledWith(expect.objectContaining({ reference: "c3fa81b20d4e" }));
  });
});
