import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, type Check, type Item } from "../../ipc";
import { allPassed, refuteBody } from "./refute";

vi.mock("../../ipc", async (load) => {
  const real = await load<typeof import("../../ipc")>();
  return { ...real, api: { checkRefutation: vi.fn() } };
});

const item: Item = {
  task_id: 9,
  kind: "refute",
  claim: "The bridge opened in 1826.",
  context: null,
  options: [],
  counter_claim: null,
    text_b: null,
  evidence: [],
  evidence_state: null,
  guidelines: "",
  previous: null,
  pace: { done: 0, total: 1, per_hour: null, minutes_left: null, more: false },
  shows: null,
  questions: [],
};

const settle = () => new Promise((r) => setTimeout(r, 0));
const checks = (passed: boolean): Check[] => [
  { kind: "identical", passed: true, message: "Differs from the original" },
  { kind: "negation_only", passed, message: passed ? "More than a negation" : "Only a negation was added" },
];

beforeEach(() => vi.resetAllMocks());

describe("refuteBody", () => {
  it("checks on every keystroke and blocks until every check passes", async () => {
    const check = vi.mocked(api.checkRefutation);
    check.mockImplementation(async (_id, text) => checks(!text.includes(" not ")));
    const changed = vi.fn();
    const body = refuteBody(item, { side: () => {}, changed });
    const input = body.el.querySelector("input") as HTMLInputElement;
    expect(input.value).toBe(item.claim);

    input.value = "The bridge not opened in 1826.";
    input.dispatchEvent(new Event("input"));
    await settle();
    expect(check).toHaveBeenLastCalledWith(9, "The bridge not opened in 1826.");
    const mark = body.el.querySelector<HTMLElement>("[data-testid=check-negation_only]");
    expect(mark?.dataset["passed"]).toBe("false");
    expect(mark?.textContent).toContain("✗");
    expect(body.ready()).toBe(false);
    expect(await body.draft()).toEqual({ blocked: "Only a negation was added" });

    input.value = "The bridge opened in 1833.";
    input.dispatchEvent(new Event("input"));
    await settle();
    expect(body.ready()).toBe(true);
    expect(changed).toHaveBeenCalled();
    expect(await body.draft()).toEqual({ answer: { text: "The bridge opened in 1833." } });
  });

  it("drops check results that arrive after newer text", async () => {
    const check = vi.mocked(api.checkRefutation);
    let first: (c: Check[]) => void = () => {};
    check.mockReturnValueOnce(new Promise((r) => (first = r)));
    check.mockResolvedValue(checks(true));
    const body = refuteBody(item, { side: () => {}, changed: () => {} });
    const input = body.el.querySelector("input") as HTMLInputElement;
    input.value = "The bridge opened in 1900.";
    input.dispatchEvent(new Event("input"));
    await settle();
    first(checks(false));
    await settle();
    expect(body.el.querySelector<HTMLElement>("[data-testid=check-negation_only]")?.dataset["passed"]).toBe("true");
  });

  it("knows when all checks passed", () => {
    expect(allPassed([])).toBe(true);
    expect(allPassed(checks(true))).toBe(true);
    expect(allPassed(checks(false))).toBe(false);
  });
});
