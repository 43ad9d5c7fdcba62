// The settings screen's "Candidate ranking" panel: the project's ranking settings in
// words and "Re-rank candidates", which ranks the project again in the background with
// those settings while annotators go on working. Its progress shows as claims done of
// the total, the rate and the time left; Cancel stops it with no candidate changed.

import { h, mount } from "../../dom";
import { errorText } from "../../errors";
import { count, plural } from "../../format";
import { api, ApiError, onRank, type ImportProgress, type RankOutcome, type Settings } from "../../ipc";

/** The ranking settings in a sentence, as the re-ranking will use them. */
export function rankingSummary(s: Settings): string {
  const r = s.ranking;
  const semantic = r.semantic ? `, re-ranked by sentence embeddings (the best ${count(r.rerank_depth)} of each claim)` : "";
  const jaccard = r.jaccard_stemming ? "; Jaccard over word stems" : "";
  return `BM25, Levenshtein and Jaccard fused${semantic}; five candidates a claim; BM25 k1 ${r.bm25_k1}, b ${r.bm25_b}${jaccard}.`;
}

/** Where a ranking stood when it was first seen here: the rate is measured from it. */
export interface Since {
  done: number;
  at: number;
}

/** "1 200 of 4 086 claims", then the rate and time left once they can be measured. */
export function rankLine(p: ImportProgress, since: Since, now: number): string {
  if (p.total === 0) return p.phase === "starting" ? "Starting…" : "Reading the project…";
  const done = `${count(p.done)} of ${plural(p.total, "claim")}`;
  const seconds = (now - since.at) / 1000;
  const moved = p.done - since.done;
  // A rate over less than a second or a few claims says nothing yet.
  if (seconds < 1 || moved <= 0) return `${done} ranked`;
  const rate = moved / seconds;
  const left = Math.ceil((p.total - p.done) / rate);
  const time = left < 60 ? `${left} s` : left < 5400 ? `${Math.ceil(left / 60)} min` : `${(left / 3600).toFixed(1)} h`;
  const shown = rate >= 10 ? count(Math.round(rate)) : rate.toFixed(1);
  return `${done} ranked · ${shown} claims/s · about ${time} left`;
}

/** What a finished ranking did, in a sentence. */
export function rankedSummary(o: RankOutcome): string {
  if (o.report) {
    const r = o.report;
    const kept = r.kept > 0 ? ` Kept the candidates of ${plural(r.kept, "claim")} people were shown, so their answers stand.` : "";
    const unscored = r.unscored > 0 ? ` ${plural(r.unscored, "claim")} kept ${r.unscored === 1 ? "its" : "their"} candidates: ${r.ranker} scores none of their sentences.` : "";
    const embedded = r.semantic_model ? ` ${plural(r.embedded, "text")} embedded.` : "";
    return `Ranked ${plural(r.claims, "claim")} again: ${plural(r.candidates, "candidate")}.${kept}${unscored}${embedded}`;
  }
  if (o.error?.code === "cancelled") return "Cancelled. No candidate was changed.";
  const why = o.error ? errorText(new ApiError(o.error)) : "The ranking ended without a report.";
  return `${why} No candidate was changed.`;
}

/**
 * The panel. `onServer`: the project is a team server's, where ranking again is the
 * server's business (`factdesk rank` there), so the button is off and says so.
 */
export function rerankPanel(onServer: boolean, fail: (e: unknown) => void): { el: HTMLElement; show: (s: Settings) => void; shown: () => void } {
  const summary = h("p", { class: "small", testid: "rerank-settings" });
  const status = h("div", { class: "import-status", testid: "rerank-status", "aria-live": "polite" });
  const go = h("button", { class: "primary", testid: "rerank-start" }, "Re-rank candidates");
  const serverNote = onServer
    ? h(
        "p",
        { class: "muted small", testid: "rerank-server-note" },
        "This project is on a team server: rank it again there, with ",
        h("code", {}, "factdesk rank PROJECT"),
        " on the server's machine. Annotators go on working meanwhile.",
      )
    : null;
  go.disabled = onServer;
  /** A ranking is shown under way. */
  let following = false;
  /** Stops listening for the followed ranking's events; kept after the progress is gone
   * while an end that may still be on its way is waited for. */
  let unfollow: (() => void) | null = null;

  /** Back to the button, with `said` (or nothing) beside it. */
  function toButton(...said: HTMLElement[]): void {
    following = false;
    go.disabled = onServer;
    mount(status, ...said);
  }

  /** Stops listening for the followed ranking, and back to the button. */
  function idle(...said: HTMLElement[]): void {
    unfollow?.();
    unfollow = null;
    toButton(...said);
  }

  /** Shows a ranking under way (from `first` on) until its end; false when one is
   * shown already. */
  async function follow(first: ImportProgress | null): Promise<boolean> {
    if (following) return false;
    // A ranking that ended unseen may still have its end on the way: this one replaces it.
    unfollow?.();
    unfollow = null;
    following = true;
    go.disabled = true;
    const bar = h("progress", { class: "progress-bar", testid: "rerank-bar", "aria-label": "Claims ranked" });
    const line = h("span", { class: "small", testid: "rerank-progress" }, "Starting…");
    const cancel = h("button", { testid: "rerank-cancel" }, "Cancel");
    cancel.addEventListener("click", () => {
      cancel.disabled = true;
      mount(line, "Cancelling…");
      api.cancelRank().catch(fail);
    });
    mount(status, bar, line, cancel);
    let since: Since | null = null;
    const shown = (p: ImportProgress): void => {
      if (p.total > 0) {
        since ??= { done: p.done, at: Date.now() };
        bar.max = p.total;
        bar.value = p.done;
      } else bar.removeAttribute("value");
      if (!cancel.disabled) mount(line, rankLine(p, since ?? { done: p.done, at: Date.now() }, Date.now()));
    };
    if (first) shown(first);
    let over = false;
    const stop = await onRank(shown, (outcome) => {
      over = true;
      const ok = outcome.report !== null;
      idle(h("span", { class: ok ? "ok" : "muted", testid: ok ? "rerank-done" : "rerank-stopped" }, rankedSummary(outcome)));
    });
    // The end can come before the listening is confirmed: then nothing is left to stop later.
    if (over) stop();
    else unfollow = stop;
    return true;
  }

  go.addEventListener("click", () => {
    void (async () => {
      // Listening before it starts, so no event is missed.
      if (!(await follow(null))) return;
      try {
        await api.startRank();
      } catch (e) {
        idle();
        fail(e);
      }
    })();
  });

  const el = h(
    "section",
    { class: "panel settings-rerank", testid: "settings-rerank" },
    h("h3", {}, "Candidate ranking"),
    summary,
    h(
      "p",
      { class: "muted small" },
      "Re-ranking ranks every claim again with these settings (changed with ",
      h("code", {}, "factdesk settings"),
      "). A claim someone has been shown keeps its candidates, so every answer stands; annotators go on working while it runs.",
    ),
    serverNote,
    h("div", { class: "import-actions" }, go, status),
  );
  return {
    el,
    show: (s) => mount(summary, rankingSummary(s)),
    // A ranking started before this screen opened (or in it, before Home) is followed again.
    shown: () => {
      if (onServer) return;
      (async () => {
        const now = await api.rankingNow();
        if (!now) return;
        if (!(await follow(now))) return;
        const still = await api.rankingNow();
        // Still running, or its end has come and been shown meanwhile.
        if (still || !following) return;
        // Over between the two questions: its end was sent before the listening began,
        // or is on its way. Back to the button, still listening for that end to show it.
        toButton();
      })().catch(fail);
    },
  };
}
