import { beforeEach, describe, expect, it, vi } from "vitest";
import { api, onRank, type ImportProgress, type RankOutcome } from "../../ipc";
import { rankedSummary, rankingSummary, rankLine, rerankPanel } from "./rerank";
import { settingsFixture } from "./settings.fixture";

vi.mock("../../ipc", async (load) => {
  const real = await load<typeof import("../../ipc")>();
  return { ...real, onRank: vi.fn(), api: { startRank: vi.fn(), cancelRank: vi.fn(), rankingNow: vi.fn() } };
});

const mocked = vi.mocked(api);
const settle = () => new Promise((r) => setTimeout(r, 0));
const q = (el: HTMLElement, id: string) => el.querySelector<HTMLElement>(`[data-testid="${id}"]`);

/** The events a ranking would send, once the panel listens. */
let events: { progress: (p: ImportProgress) => void; done: (o: RankOutcome) => void } | null = null;
const unlisten = vi.fn();

beforeEach(() => {
  vi.resetAllMocks();
  events = null;
  vi.mocked(onRank).mockImplementation(async (progress, done) => {
    events = { progress, done };
    return unlisten;
  });
  mocked.startRank.mockResolvedValue(null);
  mocked.cancelRank.mockResolvedValue(null);
  mocked.rankingNow.mockResolvedValue(null);
});

const report = { ranker: "fused", claims: 2997, candidates: 14985, kept: 3, unscored: 0, semantic_model: null, embedded: 0 };

describe("the ranking in words", () => {
  it("says the settings the re-ranking uses", () => {
    const s = settingsFixture();
    expect(rankingSummary(s)).toBe("BM25, Levenshtein and Jaccard fused; five candidates a claim; BM25 k1 1.2, b 0.75.");
    s.ranking = { ...s.ranking, semantic: true, jaccard_stemming: true };
    expect(rankingSummary(s)).toContain("re-ranked by sentence embeddings (the best 50 of each claim)");
    expect(rankingSummary(s)).toContain("Jaccard over word stems");
  });

  it("shows done of total, then the rate and time left measured from the first sight", () => {
    const p = { phase: "ranking", done: 1200, total: 4086 };
    expect(rankLine({ ...p, total: 0, phase: "starting" }, { done: 0, at: 0 }, 0)).toBe("Starting…");
    expect(rankLine(p, { done: 1200, at: 0 }, 500)).toBe("1\u202f200 of 4\u202f086 claims ranked");
    // 1 000 claims in 10 s: 100/s, 2 886 left in 29 s.
    expect(rankLine(p, { done: 200, at: 0 }, 10_000)).toBe("1\u202f200 of 4\u202f086 claims ranked · 100 claims/s · about 29 s left");
    // Slow semantic ranking: 2.5/s, 2 886 claims left in 20 min.
    expect(rankLine(p, { done: 1175, at: 0 }, 10_000)).toBe("1\u202f200 of 4\u202f086 claims ranked · 2.5 claims/s · about 20 min left");
  });

  it("says what a ranking did, or that nothing changed", () => {
    expect(rankedSummary({ report, error: null })).toBe(
      "Ranked 2\u202f997 claims again: 14\u202f985 candidates. Kept the candidates of 3 claims people were shown, so their answers stand.",
    );
    expect(rankedSummary({ report: { ...report, ranker: "bm25", kept: 0, unscored: 2 }, error: null })).toBe(
      "Ranked 2\u202f997 claims again: 14\u202f985 candidates. 2 claims kept their candidates: bm25 scores none of their sentences.",
    );
    const cancelled = { code: "cancelled" as const, message: "cancelled: nothing was changed", location: null };
    expect(rankedSummary({ report: null, error: cancelled })).toBe("Cancelled. No candidate was changed.");
    const broken = { code: "not_found" as const, message: "no model in /m", location: null };
    expect(rankedSummary({ report: null, error: broken })).toBe("no model in /m No candidate was changed.");
  });
});

describe("Re-rank candidates", () => {
  it("starts a ranking, shows its progress, cancels it and says nothing changed", async () => {
    const fail = vi.fn();
    const panel = rerankPanel(false, fail);
    document.body.replaceChildren(panel.el);
    panel.show(settingsFixture());
    const go = q(panel.el, "rerank-start") as HTMLButtonElement;
    go.click();
    await settle();
    expect(mocked.startRank).toHaveBeenCalledOnce();
    expect(go.disabled).toBe(true);
    events?.progress({ phase: "ranking", done: 0, total: 3000 });
    events?.progress({ phase: "ranking", done: 640, total: 3000 });
    expect(q(panel.el, "rerank-progress")?.textContent).toBe("640 of 3\u202f000 claims ranked");
    expect((q(panel.el, "rerank-bar") as HTMLProgressElement).value).toBe(640);
    q(panel.el, "rerank-cancel")?.click();
    expect(mocked.cancelRank).toHaveBeenCalledOnce();
    expect(q(panel.el, "rerank-progress")?.textContent).toBe("Cancelling…");
    events?.done({ report: null, error: { code: "cancelled", message: "cancelled", location: null } });
    expect(q(panel.el, "rerank-stopped")?.textContent).toBe("Cancelled. No candidate was changed.");
    expect(go.disabled).toBe(false);
    expect(unlisten).toHaveBeenCalledOnce();
    expect(fail).not.toHaveBeenCalled();
  });

  it("follows a ranking already running when the screen opens", async () => {
    mocked.rankingNow.mockResolvedValue({ phase: "ranking", done: 300, total: 3000 });
    const panel = rerankPanel(false, vi.fn());
    panel.shown();
    await settle();
    await settle();
    expect(q(panel.el, "rerank-progress")?.textContent).toBe("300 of 3\u202f000 claims ranked");
    expect((q(panel.el, "rerank-start") as HTMLButtonElement).disabled).toBe(true);
    events?.done({ report, error: null });
    expect(q(panel.el, "rerank-done")?.textContent).toContain("Ranked 2\u202f997 claims again");
  });

  it("shows the end of a ranking that ends as the screen opens, whenever its end arrives", async () => {
    // The first question finds it running; by the second it is over, its end still on the way.
    mocked.rankingNow.mockResolvedValueOnce({ phase: "ranking", done: 2990, total: 2997 }).mockResolvedValueOnce(null);
    const late = rerankPanel(false, vi.fn());
    late.shown();
    for (let i = 0; i < 4; i++) await settle();
    expect((q(late.el, "rerank-start") as HTMLButtonElement).disabled).toBe(false);
    expect(q(late.el, "rerank-progress")).toBeNull();
    expect(unlisten).not.toHaveBeenCalled();
    events?.done({ report, error: null });
    expect(q(late.el, "rerank-done")?.textContent).toContain("Ranked 2\u202f997 claims again");
    expect(unlisten).toHaveBeenCalledOnce();

    // Its end arrives between the two questions: the second answer does not clear it.
    let answer: (p: ImportProgress | null) => void = () => undefined;
    mocked.rankingNow
      .mockResolvedValueOnce({ phase: "ranking", done: 2990, total: 2997 })
      .mockReturnValueOnce(new Promise((r) => (answer = r)));
    const early = rerankPanel(false, vi.fn());
    early.shown();
    for (let i = 0; i < 4; i++) await settle();
    events?.done({ report, error: null });
    answer(null);
    for (let i = 0; i < 4; i++) await settle();
    expect(q(early.el, "rerank-done")?.textContent).toContain("Ranked 2\u202f997 claims again");
  });

  it("stops listening when a ranking ends before the listening is confirmed", async () => {
    vi.mocked(onRank).mockImplementation(async (_progress, done) => {
      done({ report, error: null });
      return unlisten;
    });
    const panel = rerankPanel(false, vi.fn());
    (q(panel.el, "rerank-start") as HTMLButtonElement).click();
    for (let i = 0; i < 4; i++) await settle();
    expect(unlisten).toHaveBeenCalledOnce();
    expect(q(panel.el, "rerank-done")).not.toBeNull();
    expect((q(panel.el, "rerank-start") as HTMLButtonElement).disabled).toBe(false);
  });

  it("is off on a team server, saying where to rank instead", async () => {
    const panel = rerankPanel(true, vi.fn());
    panel.shown();
    await settle();
    expect((q(panel.el, "rerank-start") as HTMLButtonElement).disabled).toBe(true);
    expect(q(panel.el, "rerank-server-note")?.textContent).toContain("factdesk rank PROJECT");
    expect(mocked.rankingNow).not.toHaveBeenCalled();
  });
});
