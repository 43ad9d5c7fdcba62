import { describe, expect, it } from "vitest";
import { defaultAnswersPath, withExtension } from "./answers-export";

describe("raw answers paths", () => {
  it("sits beside the project", () => {
    expect(defaultAnswersPath("/data/covid.fdesk", "csv")).toBe("/data/covid.answers.csv");
    expect(defaultAnswersPath("/data/covid", "jsonl")).toBe("/data/covid.answers.jsonl");
    // Connected, the project is an address: no folder of it is on this machine.
    expect(defaultAnswersPath("https://factdesk.example.org", "csv")).toBe("");
  });

  it("follows the chosen format", () => {
    expect(withExtension("/x/a.answers.jsonl", "parquet")).toBe("/x/a.answers.parquet");
    expect(withExtension("/x/a.CSV", "jsonl")).toBe("/x/a.jsonl");
    expect(withExtension("/x/answers", "csv")).toBe("/x/answers.csv");
  });
});
