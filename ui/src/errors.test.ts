import { describe, expect, it } from "vitest";
import { errorText } from "./errors";
import { ApiError } from "./ipc";

describe("errorText", () => {
  it("names the place in the file when the backend gives one", () => {
    const e = new ApiError({
      code: "invalid_input",
      message: "missing claim text",
      location: { file: "claims.jsonl", line: 7, field: "claim" },
    });
    expect(errorText(e)).toBe(`claims.jsonl, line 7, field "claim": missing claim text`);
  });

  it("uses the message alone otherwise", () => {
    expect(errorText(new ApiError({ code: "not_found", message: "no such project", location: null }))).toBe(
      "no such project",
    );
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText("plain")).toBe("plain");
  });
});
