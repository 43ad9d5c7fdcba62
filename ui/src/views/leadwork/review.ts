// The lead's review of written refutations (the new-writer queue): each one beside its
// original with the changed words marked, accepted or rejected by one key with a note.
// Accepting opens its verification; rejecting closes it.

import { h, mount } from "../../dom";
import { keyRows, meaningOf } from "../../keymap";
import { plainError } from "../../errors";
import { claimNumber } from "../../format";
import { ApiError, api, type PendingReview } from "../../ipc";
import type { Screen } from "../screen";
import { diffView, wordDiff } from "../work/diff";

export interface LeadDeps {
  home: () => void;
  fail: (e: unknown) => void;
}

/** The side panel listing a lead screen's keys. */
export function keysPanel(keys: [string, string][]): HTMLElement {
  return h(
    "aside",
    { class: "panel keys-panel" },
    h("h3", {}, "Keys"),
    h("dl", { class: "keys" }, ...keys.flatMap(([k, what]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, what)])),
  );
}

const KEYS: [string, string][] = keyRows([
  ["accept", "its verification opens"],
  ["reject", "it is closed"],
  ["comment", "a note for the writer (Enter returns to the keys)"],
  "next",
  "back",
  "escape",
]);

/** "3 waiting", or that none is. */
export function waitingText(n: number): string {
  return n === 0 ? "None waiting" : `${n} waiting`;
}

/** What was decided, in a sentence for the status line. */
export function decidedText(r: PendingReview, accepted: boolean): string {
  return accepted
    ? `Accepted ${r.annotator}'s refutation: it goes to verification.`
    : `Rejected ${r.annotator}'s refutation: it will not be verified.`;
}

export function reviewScreen(deps: LeadDeps): Screen {
  let pending: PendingReview[] = [];
  let at = 0;
  let busy = false;
  const count = h("span", { class: "muted", testid: "review-count" });
  const status = h("p", { class: "adj-notice", testid: "review-status", role: "status" });
  const problem = h("p", { class: "error-text field-error", testid: "review-problem", role: "alert" });
  const detail = h("section", { class: "panel review-detail", testid: "review-detail" }, h("p", { class: "muted" }, "Reading…"));
  const note = h("input", {
    class: "text-input review-note",
    testid: "review-note",
    type: "text",
    placeholder: "Note for the writer (optional, kept with the decision)",
    "aria-label": "Note",
    dir: "auto",
  });
  note.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === "Escape") {
      ev.preventDefault();
      note.blur();
    }
  });

  function draw(): void {
    mount(count, waitingText(pending.length));
    const r = pending[at];
    if (!r) {
      mount(detail, h("p", { class: "muted", testid: "review-empty" }, "No written refutation waits for review. New ones appear here as writers submit them."));
      return;
    }
    const diff = wordDiff(r.original, r.written);
    mount(
      detail,
      h(
        "div",
        { class: "review-head" },
        h("span", { class: "badge", testid: "review-writer", dir: "auto" }, r.annotator),
        h("span", { class: "muted small" }, `${at + 1} of ${pending.length} · answer ${r.annotation_id}`),
      ),
      h("h3", {}, "Original ", h("span", { class: "claim-number", testid: "review-original-number" }, claimNumber(r.original_number))),
      h("p", { class: "claim review-text", testid: "review-original", dir: "auto" }, ...diffView(diff.a, "removed")),
      h("h3", {}, "Written refutation ", h("span", { class: "claim-number", testid: "review-written-number" }, claimNumber(r.written_number))),
      h("p", { class: "claim review-text", testid: "review-written", dir: "auto" }, ...diffView(diff.b, "added")),
      h("label", { class: "review-note-label" }, note),
      problem,
      h(
        "div",
        { class: "adj-actions" },
        h("button", { class: "primary", testid: "review-accept", onclick: () => void decide(true) }, "Accept ", h("kbd", {}, "A")),
        h("button", { testid: "review-reject", onclick: () => void decide(false) }, "Reject ", h("kbd", {}, "R")),
      ),
    );
  }

  async function load(): Promise<void> {
    pending = await api.pendingReviews();
    at = Math.min(at, Math.max(pending.length - 1, 0));
    draw();
  }

  async function decide(accepted: boolean): Promise<void> {
    const r = pending[at];
    if (!r || busy) return;
    busy = true;
    mount(problem);
    try {
      await api.reviewRefutation(r.annotation_id, accepted, note.value.trim() || null);
      note.value = "";
      mount(status, decidedText(r, accepted));
      await load();
    } catch (e) {
      // Next to the buttons it is about, in plain words; the item stays for another try.
      mount(problem, plainError(accepted ? "Could not accept it" : "Could not reject it", e));
      // Decided meanwhile elsewhere: the list on screen is stale, so it is read again.
      if (e instanceof ApiError && e.code === "conflict") await load().catch(deps.fail);
    } finally {
      busy = false;
    }
  }

  function move(by: number): void {
    if (!pending.length) return;
    at = Math.min(Math.max(at + by, 0), pending.length - 1);
    note.value = "";
    mount(problem);
    draw();
  }

  const el = h(
    "main",
    { class: "lead-screen", testid: "review" },
    h(
      "div",
      { class: "dash-head" },
      h("div", {}, h("h1", {}, "Refutation review"), h("p", { class: "muted" }, "New writers' refutations, before they are verified. ", count)),
      h("span", { class: "spacer" }),
      h("button", { testid: "review-home", onclick: () => deps.home() }, "Home ", h("kbd", {}, "Esc")),
    ),
    status,
    h(
      "div",
      { class: "lead-screen-grid" },
      detail,
      keysPanel(KEYS),
    ),
  );

  return {
    el,
    onKey(ev: KeyboardEvent): boolean {
      const meaning = meaningOf(ev.key);
      if (meaning === "escape") deps.home();
      else if (meaning === "accept") void decide(true);
      else if (meaning === "reject") void decide(false);
      else if (meaning === "comment") {
        ev.preventDefault();
        note.focus();
      } else if (meaning === "next") move(1);
      else if (meaning === "back") move(-1);
      else return false;
      return true;
    },
    shown(): void {
      void load().catch(deps.fail);
    },
  };
}
