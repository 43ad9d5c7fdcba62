import { describe, expect, it } from "vitest";
import { pathField, splitPath } from "./path-field";

describe("a path field", () => {
  it("splits a path into its folder and its file name, the separator with the name", () => {
    expect(splitPath("/tmp/factdesk-e2e-OJDAIg/demo.gold.jsonl")).toEqual(["/tmp/factdesk-e2e-OJDAIg", "/demo.gold.jsonl"]);
    expect(splitPath("C:\\data\\gold.jsonl")).toEqual(["C:\\data", "\\gold.jsonl"]);
    expect(splitPath("gold.jsonl")).toEqual(["", "gold.jsonl"]);
    expect(splitPath("")).toEqual(["", ""]);
  });

  it("shows the path's two ends and the whole path in the tooltip, as typed and as set", () => {
    const input = document.createElement("input");
    input.dataset["testid"] = "export-out";
    input.value = "/tmp/work/demo.gold.jsonl";
    const field = pathField(input);
    const shown = field.el.querySelector("[data-testid=export-out-shown]");
    expect(shown?.querySelector(".path-folder")?.textContent).toBe("/tmp/work");
    expect(shown?.querySelector(".path-name")?.textContent).toBe("/demo.gold.jsonl");
    expect(input.title).toBe("/tmp/work/demo.gold.jsonl");
    input.value = "/home/ana/gold.jsonl";
    input.dispatchEvent(new Event("input"));
    expect(shown?.textContent).toBe("/home/ana/gold.jsonl");
    input.value = "";
    field.refresh();
    expect(field.el.classList.contains("empty")).toBe(true);
    expect(input.title).toBe("");
  });
});
