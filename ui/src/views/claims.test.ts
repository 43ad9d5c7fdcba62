import { beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, api, type ClaimView } from "../ipc";
import { claimScreen, claimsScreen, newClaimsState, sentenceScreen, taskState } from "./claims";

vi.mock("../ipc", async (load) => {
  const real = await load<typeof import("../ipc")>();
  return { ...real, api: { claimView: vi.fn(), claimsList: vi.fn(), sentencePassage: vi.fn() } };
});

const mocked = vi.mocked(api);
const settle = () => new Promise((r) => setTimeout(r, 0));
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`);

// An annotator's view: no number, no imported id; the claim is named by their reference.
const own: ClaimView = {
  id: 0,
  reference: "c3fa81b20d4e",
  ext_id: "",
  text: "Masks cut transmission",
  context: null,
  parent: null,
  parent_number: null,
  parent_reference: null,
  full: false,
  label: null,
  documents: [],
  candidates: [],
  candidate_rankers: [],
  tasks: [{ task_id: 9, kind: "evidence", overlap: 3, answered: 2, closed: false, answers: [{ annotator: "ana", summary: "sentences selected", comment: "hm", trick_failed: false, at: 0 }] }],
};

beforeEach(() => vi.resetAllMocks());

describe("claim screen", () => {
  it("shows an annotator's own answer, labelled as theirs, and goes back on Esc", async () => {
    mocked.claimView.mockResolvedValueOnce(own);
    const back = vi.fn();
    const s = claimScreen("c3fa81b20d4e", { back, fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    // Opened and named by the annotator's own reference: no number, no imported id.
    expect(mocked.claimView).toHaveBeenCalledWith("c3fa81b20d4e");
    // An annotator's opaque reference is kept on the page, not shown: it tells them nothing.
    expect(q(s.el, "claim-number")?.dataset["reference"]).toBe("c3fa81b20d4e");
    expect(s.el.textContent).not.toContain("c3fa81b20d4e");
    expect(q(s.el, "claim-ext-id")?.textContent).toBe("");
    expect(q(s.el, "claim-answer-ana")?.textContent).toContain("Your answer");
    expect(q(s.el, "claim-own-only")).not.toBeNull();
    expect(q(s.el, "claim-candidates")).toBeNull();
    s.onKey?.(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(back).toHaveBeenCalled();
  });
});

describe("claim screen, lead", () => {
  it("lists the candidates and shows one in its document", async () => {
    const full: ClaimView = {
      ...own,
      id: 4,
      reference: "#4",
      ext_id: "covid-0004",
      parent: "covid-0001",
      parent_number: 1,
      parent_reference: "#1",
      full: true,
      label: "SUPPORTED",
      documents: ["d1"],
      candidates: [
        { sentence_id: 31, document_id: "d1", sentence_index: 4, text: "The masks worked." },
        { sentence_id: 38, document_id: "d1", sentence_index: 11, text: "Nobody asked." },
      ],
      candidate_rankers: [["bm25", "semantic"], []],
    };
    mocked.claimView.mockResolvedValueOnce(full);
    mocked.sentencePassage.mockResolvedValueOnce({ title: "Masks", sentences: [{ text: "The masks worked.", hit: true }] });
    const s = claimScreen("#4", { back: vi.fn(), fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    // Named by its number in the project, the imported id kept as provenance.
    expect(q(s.el, "claim-number")?.textContent).toBe("#4");
    expect(q(s.el, "claim-ext-id")?.textContent).toBe("imported as covid-0004");
    expect(q(s.el, "claim-facts")?.textContent).toContain("refutation of #1 (covid-0001)");
    // Numbered once, by rank: the document names where it comes from, not a second number.
    expect(q(s.el, "claim-candidates")?.textContent).toContain("from d1");
    expect(q(s.el, "claim-candidates")?.textContent).not.toContain("sentence 5");
    expect(q(s.el, "claim-placed-1")?.textContent).toBe("placed by bm25, semantic");
    // Where it comes from and "placed by" are kept apart by a separator of their own.
    expect(q(s.el, "claim-candidates")?.querySelector("li")?.textContent).toBe(
      "The masks worked. from d1 · placed by bm25, semantic in document",
    );
    // A candidate no ranker placed (the trick sentence) has no dangling separator.
    expect(q(s.el, "claim-candidates")?.querySelectorAll("li")[1]?.textContent).toBe("Nobody asked. from d1 in document");
    q(s.el, "claim-show-1")?.click();
    await settle();
    expect(mocked.sentencePassage).toHaveBeenCalledWith(31);
    expect(q(s.el, "claim-passage")?.querySelector("mark")?.textContent).toBe("The masks worked.");
  });
});

describe("list of claims", () => {
  it("moves with the arrows, opens with Enter and keeps its place", async () => {
    const lines = ["a", "b", "c"].map((x, i) => ({ id: i + 1, ext_id: `c-${x}`, text: `claim ${x}`, is_refutation: false, tasks: 1, answered: 0, wanted: 2 }));
    mocked.claimsList.mockResolvedValue({ total: 3, offset: 0, lines });
    const open = vi.fn();
    const state = newClaimsState();
    const s = claimsScreen(state, { home: vi.fn(), open, fail: vi.fn() });
    document.body.replaceChildren(s.el);
    s.shown?.();
    await settle();
    expect(mocked.claimsList).toHaveBeenCalledWith(null, "any", 0, 100);
    const press = (key: string) => s.onKey?.(new KeyboardEvent("keydown", { key }));
    press("ArrowDown");
    press("j");
    press("j");
    expect(q(s.el, "claims-row-c-c")?.getAttribute("aria-selected")).toBe("true");
    expect([...s.el.querySelectorAll('[data-testid="claims-number"]')].map((e) => e.textContent)).toEqual(["#1", "#2", "#3"]);
    press("k");
    press("Enter");
    expect(open).toHaveBeenCalledWith("#2");
    expect(state.at).toBe(1);
  });
});

describe("sentence screen", () => {
  const hit = { kind: "sentence" as const, id: 5, reference: "", ext_id: "doc-1", text: "The port closed.", document_id: 1, score: 1 };

  it("shows the sentence among its neighbours when the api allows it", async () => {
    mocked.sentencePassage.mockResolvedValueOnce({ title: "Port", sentences: [{ text: "It opened.", hit: false }, { text: "The port closed.", hit: true }] });
    const s = sentenceScreen(hit, { back: vi.fn(), fail: vi.fn() });
    s.shown?.();
    await settle();
    expect(s.el.querySelector("mark")?.textContent).toBe("The port closed.");
  });

  it("keeps the sentence as found when the api refuses the passage (an annotator)", async () => {
    mocked.sentencePassage.mockRejectedValueOnce(new ApiError({ code: "forbidden", message: "ana may not", location: null }));
    const fail = vi.fn();
    const s = sentenceScreen(hit, { back: vi.fn(), fail });
    s.shown?.();
    await settle();
    expect(fail).not.toHaveBeenCalled();
    expect(q(s.el, "sentence-passage")?.textContent).toBe("The port closed.");
  });
});

describe("a task on the claim page", () => {
  const task = { task_id: 93810275512841, kind: "label" as const, overlap: 2, answered: 1, closed: false, answers: [] };
  it("tells an annotator only whether they answered it", () => {
    expect(taskState(task, false)).toBe("answered by you");
    expect(taskState({ ...task, answered: 0 }, false)).toBe("not answered by you");
  });
  it("tells a lead its number and counted answers", () => {
    expect(taskState({ ...task, task_id: 12 }, true)).toBe("1 of 2 counted answers");
    expect(taskState({ ...task, task_id: 12, closed: true }, true)).toBe("closed");
  });
});
