import { describe, expect, it } from "vitest";
import { ApiError, type Annotator, type MergeOutcome, type Settings } from "../../ipc";
import { shortId, unansweredQuestion } from "../packs";
import { flagOrder, standing } from "./flags";
import { dayValue, daysUntil, issueField, parseDay, suggestedPath } from "./issue";
import { decidedText, waitingText } from "./review";
import { fieldOf, mergeSettings, percentText, share, stanceNote, wholeNumber } from "./settings";
import { settingsFixture } from "./settings.fixture";

const person = (name: string, over: Partial<Annotator> = {}): Annotator => ({
  id: 1,
  name,
  role: "annotator",
  tricks_seen: 5,
  tricks_failed: 0,
  trick_failure_rate: 0,
  trick_failure_ci95: null,
  flagged: false,
  flag_override: null,
  counted: true,
  ...over,
});

describe("refutation review", () => {
  it("says how many wait and what a decision did", () => {
    expect(waitingText(0)).toBe("None waiting");
    expect(waitingText(3)).toBe("3 waiting");
    const r = { annotation_id: 7, annotator: "ana", original_number: 3, original: "A", written_number: 9, written: "B" };
    expect(decidedText(r, true)).toContain("goes to verification");
    expect(decidedText(r, false)).toContain("will not be verified");
  });
});

describe("settings", () => {
  it("reads whole numbers and percentages, refusing anything else", () => {
    expect(wholeNumber(" 3 ")).toBe(3);
    expect(wholeNumber("2.5")).toBeNull();
    expect(wholeNumber("-1")).toBeNull();
    expect(wholeNumber("4294967295")).toBe(4_294_967_295);
    expect(wholeNumber("4294967296")).toBeNull();
    expect(wholeNumber("99999999999999999999")).toBeNull();
    expect(share("20")).toBeCloseTo(0.2);
    expect(share("12.5 %")).toBeCloseTo(0.125);
    expect(share("lots")).toBeNull();
    expect(percentText(0.2)).toBe("20");
    expect(percentText(0.07)).toBe("7");
  });

  it("keeps what another window saved meanwhile, and stops where both changed a field", () => {
    const read: Settings = settingsFixture();
    // Another window changed the label guideline and the overlap; this screen changed the
    // reservation only: no clash, and only the reservation is written.
    const now: Settings = { ...read, overlap: 2, guidelines: { ...read.guidelines, label: "Label carefully." } };
    const typed = new Map([
      ["overlap", "3"],
      ["reservation_minutes", "45"],
      ["guidelines.label", "Label."],
    ]);
    expect(mergeSettings(read, now, typed)).toEqual({ keys: ["reservation_minutes"], clashes: [] });
    // This screen changed the overlap too, to another value: a clash.
    typed.set("overlap", "4");
    expect(mergeSettings(read, now, typed)).toEqual({ keys: ["overlap", "reservation_minutes"], clashes: ["overlap"] });
    // Both set it to the same value: no clash.
    typed.set("overlap", "2");
    expect(mergeSettings(read, now, typed).clashes).toEqual([]);
  });

  it("tells the lead what the trick checks under the stance chosen", () => {
    expect(stanceNote("supports")).toContain("its form gives it away");
    expect(stanceNote("supports_or_refutes")).toContain("another document");
    for (const v of ["supports", "supports_or_refutes"]) expect(stanceNote(v)).toContain("Fixed once evidence answers exist");
  });

  it("finds the field a refusal is about", () => {
    const e = new ApiError({ code: "invalid_input", message: "no", location: { file: "settings", line: 0, field: "overlap" } });
    expect(fieldOf(e)).toBe("overlap");
    expect(fieldOf(new ApiError({ code: "conflict", message: "no", location: null }))).toBeNull();
    expect(fieldOf(new Error("x"))).toBeNull();
  });
});

describe("flag decisions", () => {
  it("puts flagged people first, then decided ones, and says where each stands", () => {
    const list = [
      person("zoe"),
      person("bob", { flag_override: "exclude", counted: false }),
      person("ana", { flagged: true, counted: false }),
      person("lea", { role: "lead", tricks_seen: 0 }),
    ];
    expect(flagOrder(list).map((a) => a.name)).toEqual(["ana", "bob", "zoe"]);
    expect(standing(list[2] as Annotator)).toBe("left out until you decide");
    expect(standing(person("ana", { flagged: true, flag_override: "include" }))).toBe("counted by your decision");
    expect(standing(list[1] as Annotator)).toBe("left out by your decision");
    expect(standing(list[0] as Annotator)).toBe("counted");
  });
});

describe("issuing a pack", () => {
  const now = Date.UTC(2026, 10, 24, 9, 30);

  it("turns the due date into whole days, tomorrow at the earliest", () => {
    expect(dayValue(now, 14)).toBe("2026-12-08");
    expect(daysUntil("2026-12-08", now)).toBe(14);
    expect(daysUntil("8 Dec 2026", now)).toBe(14);
    expect(daysUntil("2026-11-25", now)).toBe(1);
    expect(daysUntil("2026-11-24", now)).toBe("Due: a day after today at the earliest.");
    expect(daysUntil("", now)).toBe("Due: a day such as 14 Dec 2026.");
    expect(daysUntil("2028-01-01", now)).toBe("Due: within a year.");
  });

  it("suggests a file beside the project, named for the annotator", () => {
    expect(suggestedPath("/work/covid.fdesk", "ana", now)).toBe("/work/ana-2026-11-24.fdpack");
    expect(suggestedPath("https://factdesk.example.org:8443", "ana", now)).toBe("");
    expect(suggestedPath("C:\\p\\x.fdesk", "José María", now)).toBe("C:\\p\\José-María-2026-11-24.fdpack");
  });

  it("puts each refusal under the field it is about", () => {
    const err = (code: ApiError["code"], message: string): ApiError => new ApiError({ code, message, location: null });
    expect(issueField(err("not_found", "no open items for ana to take in a pack"))).toBe("count");
    expect(issueField(err("not_found", 'no annotator called "x"'))).toBe("annotator");
    expect(issueField(err("already_exists", "x.fdpack already exists"))).toBe("out");
    expect(issueField(err("forbidden", "ana is not a lead"))).toBeNull();
    expect(issueField(err("conflict", "b.fdpack is a Factdesk pack; writing there would destroy its answers"), "/w/b.fdpack")).toBe("out");
  });
});

describe("packs", () => {
  it("shows a short id and asks before merging an unanswered pack", () => {
    expect(shortId("0f3c2a9e-1111-2222-3333-444455556666")).toBe("0f3c2a9e");
    const o: MergeOutcome = {
      file: "/tmp/ana.fdpack",
      report: null,
      error: { code: "unanswered", message: "refused", location: null },
    };
    expect(unansweredQuestion(o)).toMatch(/^ana\.fdpack has no answers yet/);
  });
});

describe("a typed day", () => {
  const day = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d);
  it("reads the app's own way of writing days, ISO dates and unambiguous numbers", () => {
    expect(parseDay("14 Dec 2026")).toBe(day(2026, 12, 14));
    expect(parseDay(" 14 december 2026 ")).toBe(day(2026, 12, 14));
    expect(parseDay("Dec 14, 2026")).toBe(day(2026, 12, 14));
    expect(parseDay("2026-12-14")).toBe(day(2026, 12, 14));
    expect(parseDay("14/12/2026")).toBe(day(2026, 12, 14));
    expect(parseDay("12/14/2026")).toBe(day(2026, 12, 14));
    expect(parseDay("05.05.2026")).toBe(day(2026, 5, 5));
  });

  it("refuses a date whose order of day and month is a guess, saying both readings (issue 36)", () => {
    expect(parseDay("12/05/2026")).toBe("Due: 12/05/2026 could be 12 May 2026 or 5 Dec 2026; write the month as a word.");
    expect(parseDay("31 Feb 2026")).toBe("Due: no such day.");
    expect(parseDay("soon")).toBe("Due: a day such as 14 Dec 2026.");
  });
});

describe("reported problems", () => {
  it("head each report with the claim's number, the kind, who and when", async () => {
    const { reportHead } = await import("../problems");
    const head = reportHead({ id: 1, claim_number: 24, claim: "c", kind: "evidence", task_id: 7, annotator: "ana", text: "cut off", at: Date.UTC(2026, 10, 30, 14, 2) });
    expect(head).toMatch(/^#24 · Evidence · ana, 30 Nov 2026, \d\d:02$/);
  });
});
