import { describe, expect, it, vi } from "vitest";
import { searchBox } from "./search";

vi.mock("../ipc", async (load) => {
  const real = await load<typeof import("../ipc")>();
  return { ...real, api: { search: vi.fn().mockResolvedValue([]) } };
});

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
});
