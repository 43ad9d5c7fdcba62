import { describe, expect, it } from "vitest";
import { errorText, plainError, readable, sentence } from "./errors";
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

describe("plain words", () => {
  it("makes a sentence of a backend message, keeping file names as they are", () => {
    expect(sentence("no such project")).toBe("No such project.");
    expect(sentence("Done.")).toBe("Done.");
    const e = new ApiError({ code: "invalid_input", message: "missing claim text", location: { file: "claims.jsonl", line: 7, field: null } });
    expect(readable(e)).toBe("claims.jsonl, line 7: Missing claim text.");
    expect(plainError("Could not write the gold file", new ApiError({ code: "io", message: "permission denied", location: null }))).toBe(
      "Could not write the gold file. Permission denied.",
    );
  });
});
