// The lead's adjudication queue: tasks sorted by disagreement, each annotator's answer and
// comment side by side, evidence candidates in their documents, and one key to take an
// answer or set the decision by hand. Decisions keep who, when and why, and can be undone.

import { capOf, keyRows, meaningOf } from "../keymap";
import { h, mount, textDirection } from "../dom";
import { errorText } from "../errors";
import { claimNumber } from "../format";
import { answerCard, fitAnswers, markCut } from "./answer-card";
import { categoryPicker } from "./category";
import { ApiError, api, type GoldRequest, type Judgement, type QueueCandidate, type QueueItem } from "../ipc";
import {
  decisionText,
  documentGroups,
  handAnswer,
  labelsFor,
  labelText,
  nextIndex,
  outcomeText,
  pagedOn,
  selectedOf,
  shareText,
  toggled,
} from "./adjudication";
import type { Screen } from "./screen";
import { KIND_TITLES } from "./work/chrome";
import { passageText } from "./work/passage";

export interface AdjudicateDeps {
  home: () => void;
  export: () => void;
  fail: (e: unknown) => void;
}

const REQUEST: GoldRequest = { method: "majority", include_flagged: false, include_under_annotated: false, splits: [70, 15, 15], seed: 1 };

const KEYS: [string, string][] = [
  ...keyRows([
    ["number", "take that counted answer (not-counted answers have no key)"],
    ["by-hand", "digits toggle sentences (or pick the label), Enter saves"],
  ]),
  [`${capOf("document")} then 1–9`, "show that sentence in its document"],
  ...keyRows([
    ["more", "the answers' sentences scroll on a page (again at their end: back to the start)"],
    ["comment", "the reason kept with the decision (Enter returns to the keys)"],
    ["category", "then a number: the disagreement's category, from the project's list (0 none)"],
    ["undo", "on this item"],
    ["next", "the next item"],
    ["back", "the item before"],
    "export",
    ["escape", "or leave deciding by hand"],
    "help",
  ]),
];

// Short enough for one line beside the buttons at 1024 wide, and free to wrap, never cut.
const LEDE = "Most disagreement first; items with fewer than two counted answers last.";

export function adjudicateScreen(deps: AdjudicateDeps): Screen {
  let items: QueueItem[] = [];
  let at = 0;
  /** Deciding by hand: the sentences chosen so far, or null when not editing. */
  let editing: number[] | null = null;
  let help: HTMLElement | null = null;
  let busy = false;
  /** D was pressed: the next digit shows that sentence in its document. */
  let showing = false;
  /** The sentence shown in its document, if any. */
  let passageOf: QueueCandidate | null = null;

  const list = h("ol", { class: "adj-list", testid: "adj-list" });
  const passage = h("div", { class: "adj-passage" });
  const detail = h("section", { class: "adj-detail", testid: "adj-detail" }, h("p", { class: "muted" }, "Reading the answers…"));
  const notice = h("p", { class: "adj-notice", testid: "adj-notice", role: "status" });
  const count = h("span", { class: "muted", testid: "adj-count" });
  const reason = h("input", {
    class: "text-input adj-reason",
    testid: "adj-reason",
    type: "text",
    placeholder: "Why (kept with the decision) — C",
    "aria-label": "Reason for the decision",
    dir: "auto",
  });
  // The project's disagreement categories (its settings); hidden when it lists none.
  const category = categoryPicker();
  /** G was pressed: the next digit picks that category. */
  let picking = false;
  reason.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === "Escape") {
      ev.preventDefault();
      reason.blur();
    }
  });

  const el = h(
    "main",
    { class: "adjudicate", testid: "adjudicate" },
    h(
      "div",
      { class: "dash-head" },
      h("div", { class: "adj-head-text" }, h("h1", {}, "Adjudication"), h("p", { class: "muted adj-lede", testid: "adj-lede" }, h("span", { class: "adj-lede-text" }, LEDE), " ", count)),
      h("span", { class: "spacer" }),
      h("button", { testid: "adj-export", onclick: () => deps.export() }, "Export ", h("kbd", {}, capOf("export"))),
      h("button", { class: "ghost", testid: "adj-keys", onclick: () => toggleHelp() }, "Keys ", h("kbd", {}, "?")),
      h("button", { testid: "adj-home", onclick: () => deps.home() }, "Home ", h("kbd", {}, "Esc")),
    ),
    notice,
    h("div", { class: "adj-grid" }, h("nav", { class: "panel adj-queue", "aria-label": "Queue", tabindex: "0" }, list), detail),
  );

  /** The notice over the queue; one line in a short window, whole in its tooltip. */
  function tell(text: string): void {
    mount(notice, text);
    notice.title = text;
  }

  function current(): QueueItem | undefined {
    return items[at];
  }

  /** The queue's rows, the thin items under their own heading after the disagreements. */
  function listRows(): HTMLElement[] {
    const rows: HTMLElement[] = [];
    items.forEach((item, i) => {
      if (item.group === "thin" && items[i - 1]?.group !== "thin") {
        rows.push(
          h(
            "li",
            { class: "adj-group muted small", testid: "adj-thin-heading" },
            "Fewer than two counted answers: nothing to compare yet",
          ),
        );
      }
      rows.push(listRow(item, i));
    });
    return rows;
  }

  function listRow(item: QueueItem, i: number): HTMLElement {
    const row = h(
      "li",
      { class: `adj-row${i === at ? " current" : ""}`, testid: `adj-row-${item.task_id}`, onclick: () => go(i) },
      h("span", { class: "adj-row-claim" }, h("span", { class: "claim-number", testid: "adj-list-number" }, claimNumber(item.claim_number)), " ", h("bdi", {}, item.claim)),
      h(
        "span",
        { class: "adj-row-meta" },
        h("span", { class: "badge badge-info" }, KIND_TITLES[item.kind]),
        h("span", { class: "muted small" }, shareText(item.share_agreeing)),
        item.decision ? h("span", { class: "badge badge-ok", testid: `adj-decided-${item.task_id}` }, "DECIDED") : null,
      ),
    );
    if (i === at) row.setAttribute("aria-current", "true");
    return row;
  }

  function answerLists(): HTMLElement[] {
    return [...detail.querySelectorAll<HTMLElement>(".adj-answer-sentences")];
  }

  /** M: every answer's sentences a page on, or back to their start once all are read. */
  function readOn(): void {
    const lists = answerLists();
    const line = parseFloat(lists[0] ? getComputedStyle(lists[0]).lineHeight : "") || 20;
    pagedOn(lists, line).forEach((top, i) => {
      const list = lists[i];
      if (list) list.scrollTop = top;
    });
    lists.forEach(markCut);
  }

  function candidatesView(item: QueueItem): HTMLElement | null {
    if (item.kind !== "evidence" && item.kind !== "label") return null;
    const heading =
      item.kind === "label"
        ? "Evidence the claim was labelled against"
        : editing
          ? "Toggle sentences by their number, 0 for no evidence, Enter to save"
          : "Candidates in their documents";
    const chosen = new Map<number, string[]>();
    for (const a of item.answers) {
      for (const s of selectedOf(a.answer)) chosen.set(s, [...(chosen.get(s) ?? []), a.annotator]);
    }
    return h(
      "div",
      { class: "adj-docs" },
      h("h2", {}, heading),
      ...documentGroups(item.candidates).map((g) =>
        h(
          "div",
          { class: "adj-doc" },
          h("div", { class: "passage-title" }, g.documentId),
          h(
            "ol",
            { class: "adj-sentences" },
            ...g.sentences.map(({ number, candidate }) => {
              const on = editing?.includes(candidate.sentence_id) ?? false;
              const by = chosen.get(candidate.sentence_id) ?? [];
              // The row mirrors with its sentence, as the cards' rows above do.
              return h(
                "li",
                { class: `adj-sentence${on ? " on" : ""}`, testid: `adj-sentence-${number}`, dir: textDirection(candidate.text) },
                editing ? h("kbd", {}, String(number)) : h("span", { class: "adj-num" }, String(number)),
                h("span", { class: "adj-sentence-text", dir: "auto" }, candidate.text),
                h("span", { class: "faint small adj-by" }, by.length ? `chosen by ${by.join(", ")}` : "chosen by nobody"),
                h(
                  "button",
                  { class: "ghost small", testid: `adj-show-${number}`, title: "Show in document (D, then its number)", onclick: () => showPassage(candidate, number) },
                  "in document",
                ),
              );
            }),
          ),
        ),
      ),
    );
  }

  function labelPicker(item: QueueItem): HTMLElement | null {
    if (!editing || item.kind === "evidence") return null;
    return h(
      "div",
      { class: "adj-labels", testid: "adj-labels" },
      h("h2", {}, "Pick the label"),
      ...labelsFor(item.kind).map((label, i) =>
        h("button", { testid: `adj-label-${i + 1}`, onclick: () => void decideByHand(label) }, h("kbd", {}, String(i + 1)), " ", labelText(label)),
      ),
    );
  }

  function draw(): void {
    mount(count, items.length === 0 ? "" : `${items.length} in the queue, ${items.filter((i) => i.decision).length} decided.`);
    mount(list, ...listRows());
    showCurrentRow(list);
    const item = current();
    if (!item) {
      mount(
        detail,
        h(
          "div",
          { class: "panel dash-empty", testid: "adj-empty" },
          h("h3", {}, "Nothing to adjudicate"),
          h("p", { class: "muted" }, "Every item the annotators answered has a clear majority."),
        ),
      );
      return;
    }
    const outcome = outcomeText(item.outcome, item.candidates, item.share_agreeing !== null, item.questions);
    const decision = item.decision ? decisionText(item.decision, item.candidates, item.questions) : "";
    mount(
      detail,
      h(
        "div",
        { class: "panel" },
        h(
          "div",
          { class: "adj-item-head" },
          h("span", { class: "badge badge-info" }, KIND_TITLES[item.kind]),
          // The claim's number, as every screen names a claim; the task's id is for the
          // command line, in the tooltip.
          h(
            "span",
            { class: "muted small", testid: "adj-task", "data-task": String(item.task_id), title: `task ${item.task_id}` },
            h("span", { class: "claim-number", testid: "adj-claim-number" }, claimNumber(item.claim_number)),
            ` · ${item.claim_id}`,
          ),
          h("span", { class: "spacer" }),
          h("span", { class: "muted small" }, shareText(item.share_agreeing)),
        ),
        judged(item),
        h("div", { class: "adj-answers" }, ...item.answers.map((_, i) => answerCard(item, i, editing !== null))),
        h(
          "div",
          { class: "adj-outcome" },
          // Each a line in a short window, cut, whole in its tooltip: the fields and keys
          // under them stay on screen at 1024×640 after a decision, with its notice above.
          h("span", { class: "adj-outcome-text", testid: "adj-outcome", title: outcome }, outcome),
          item.decision
            ? h(
                "p",
                { class: "adj-decision", testid: "adj-decision", title: decision },
                h("span", { class: "adj-decision-text" }, decision),
                " ",
                h("kbd", {}, "U"),
                " undoes",
              )
            : null,
        ),
        h(
          "div",
          { class: "adj-actions" },
          category.el,
          reason,
          // Two short lines, no taller than the fields, so the reason keeps room for its
          // placeholder at 1024×640; the rest of the keys are under "Keys ?" at the top.
          h(
            "span",
            { class: "adj-hints muted small", testid: "adj-hints" },
            // Said only where a digit takes something: counted answers, not while deciding by hand.
            editing === null && item.answers.some((a, i) => i < 9 && a.counted) ? h("span", {}, "1–9 take an answer") : null,
            h("span", {}, `${capOf("by-hand")} decide by hand`),
          ),
        ),
        labelPicker(item),
        candidatesView(item),
        passage,
      ),
    );
    fit();
  }

  /** The answers' boxes grown into the window's spare room, under the fields' row. */
  function fit(): void {
    fitAnswers(answerLists(), detail.querySelector<HTMLElement>(".adj-actions"));
  }

  function go(i: number): void {
    if (items.length === 0) return;
    at = Math.max(0, Math.min(items.length - 1, i));
    editing = null;
    closePassage();
    draw();
  }

  function closePassage(): void {
    passageOf = null;
    mount(passage);
  }

  function showPassage(candidate: QueueCandidate, number: number): void {
    passageOf = candidate;
    const body = h("div", { class: "passage-body" }, h("p", { class: "muted" }, "Loading…"));
    const title = h("div", { class: "passage-title", testid: "passage-title" });
    mount(
      passage,
      h(
        "aside",
        { class: "passage", testid: "passage", "aria-label": "Sentence in its document" },
        h(
          "div",
          { class: "passage-head" },
          h("h2", {}, `Sentence ${number} in its document`),
          h("button", { class: "ghost", testid: "passage-close", onclick: closePassage }, "Close ", h("kbd", {}, "Esc")),
        ),
        title,
        body,
      ),
    );
    api.sentencePassage(candidate.sentence_id).then(
      (p) => {
        if (passageOf !== candidate) return;
        mount(title, p.title ?? candidate.document_id);
        mount(body, passageText(p));
      },
      (e: unknown) => mount(body, h("p", { class: "error-text" }, errorText(e))),
    );
    passage.scrollIntoView({ block: "nearest" });
  }

  async function reload(): Promise<void> {
    const fresh = await api.adjudicationQueue(REQUEST);
    // The item on screen once the queue is read: a row clicked while it was read stands.
    const task = current()?.task_id;
    items = fresh;
    const again = items.findIndex((i) => i.task_id === task);
    at = again >= 0 ? again : Math.min(at, Math.max(items.length - 1, 0));
  }

  /** Runs a decision, then shows the queue again on the next item. */
  async function act(what: () => Promise<unknown>, done: (item: QueueItem) => string, advance: boolean): Promise<void> {
    const item = current();
    if (!item || busy) return;
    busy = true;
    try {
      await what();
      reason.value = "";
      category.clear();
      editing = null;
      await reload();
      const decided = items.find((i) => i.task_id === item.task_id) ?? item;
      tell(done(decided));
      if (advance) at = nextIndex(items, items.indexOf(decided));
      draw();
    } catch (e) {
      if (e instanceof ApiError && e.code === "conflict") {
        // Decided meanwhile elsewhere: the queue on screen is stale; read it again and say so.
        await reload().catch(deps.fail);
        tell(e.message);
        draw();
      } else deps.fail(e);
    } finally {
      busy = false;
    }
  }

  const why = (): string | null => reason.value.trim() || null;
  const kindOf = (): string | null => category.chosen();
  const said = (item: QueueItem): string =>
    item.decision
      ? `${claimNumber(item.claim_number)}: ${decisionText(item.decision, item.candidates, item.questions)}`
      : `${claimNumber(item.claim_number)} decided.`;

  function take(i: number): void {
    const item = current();
    const a = item?.answers[i];
    // Only counted answers have keys (they come first): a rejected or not-counted answer
    // is shown for reference, never taken by a digit.
    if (!item || !a || !a.counted) return;
    void act(() => api.decide(item.task_id, item.decision?.at ?? null, { take: a.annotator }, why(), kindOf()), said, true);
  }

  async function decideByHand(label: Judgement | null): Promise<void> {
    const item = current();
    if (!item || editing === null) return;
    const answer = handAnswer(item.kind, editing, label);
    if (!answer) return;
    await act(() => api.decide(item.task_id, item.decision?.at ?? null, { answer }, why(), kindOf()), said, true);
  }

  function undo(): void {
    const item = current();
    if (!item?.decision) return;
    const seen = item.decision.at;
    void act(() => api.undoDecision(item.task_id, seen, why()), (i) => `${claimNumber(i.claim_number)}: decision undone; the answers settle it again.`, false);
  }

  function toggleHelp(): void {
    if (help) {
      help.remove();
      help = null;
      return;
    }
    help = h(
      "div",
      { class: "help-backdrop", onclick: (ev) => ev.target === ev.currentTarget && toggleHelp() },
      h(
        "section",
        { class: "help", role: "dialog", "aria-label": "Keys", testid: "keys-help" },
        h("h2", {}, "Keys — Adjudication"),
        h("dl", {}, ...KEYS.flatMap(([keys, what]) => [h("dt", {}, h("kbd", {}, keys)), h("dd", {}, what)])),
        h("button", { class: "ghost", onclick: () => toggleHelp() }, "Close ", h("kbd", {}, "Esc")),
      ),
    );
    el.append(help);
  }

  function editKey(item: QueueItem, key: string): boolean {
    if (key === "Escape") {
      editing = null;
      draw();
      return true;
    }
    if (item.kind === "evidence") {
      if (key === "Enter") {
        void decideByHand(null);
        return true;
      }
      if (key === "0") {
        editing = [];
        draw();
        return true;
      }
      const c = /^[1-9]$/.test(key) ? item.candidates[Number(key) - 1] : undefined;
      if (!c || !editing) return false;
      editing = toggled(editing, c.sentence_id, item.candidates);
      draw();
      return true;
    }
    const label = /^[1-9]$/.test(key) ? labelsFor(item.kind)[Number(key) - 1] : undefined;
    if (!label) return false;
    void decideByHand(label);
    return true;
  }

  return {
    el,
    onKey(ev: KeyboardEvent): boolean {
      if (help) {
        const meaning = meaningOf(ev.key);
        if (meaning === "escape" || meaning === "help") toggleHelp();
        return true;
      }
      const item = current();
      const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
      if (item && editing !== null) return editKey(item, key);
      if (showing) {
        showing = false;
        const c = /^[1-9]$/.test(key) ? item?.candidates[Number(key) - 1] : undefined;
        if (c) showPassage(c, Number(key));
        return true;
      }
      if (picking) {
        picking = false;
        category.prompt(false);
        if (/^[0-9]$/.test(key)) category.pick(Number(key));
        return true;
      }
      if (key === "Escape" && passageOf) {
        closePassage();
        return true;
      }
      // The arrows scroll an answer's sentences when they have the focus, as the box says.
      if ((key === "ArrowDown" || key === "ArrowUp") && document.activeElement?.closest(".adj-answer-sentences")) return false;
      const meaning = meaningOf(key);
      if (meaning === "help") toggleHelp();
      else if (meaning === "escape") deps.home();
      else if (meaning === "next") go(at + 1);
      else if (meaning === "back") go(at - 1);
      else if (meaning === "export") deps.export();
      else if (meaning === "comment") {
        ev.preventDefault();
        reason.focus();
      } else if (meaning === "category" && category.offered()) {
        picking = true;
        category.prompt(true);
      } else if (meaning === "undo") undo();
      else if (meaning === "more") readOn();
      else if (meaning === "document" && (item?.kind === "evidence" || item?.kind === "label")) showing = true;
      else if (meaning === "by-hand" && item && item.kind !== "refute") {
        editing = item.kind === "evidence" ? candidatesOf(item) : [];
        draw();
      } else if (meaning === "number") take(Number(key) - 1);
      else return false;
      return true;
    },
    shown(): void {
      api.settings().then((s) => category.list(s.disagreement_categories), deps.fail);
      reload().then(draw, deps.fail);
      window.addEventListener("resize", fit);
    },
    leave(): void {
      window.removeEventListener("resize", fit);
    },
  };
}

/** Editing starts from the current gold sentences, so a small fix is a small edit. */
/**
 * What is judged: the claim, or a pair's two texts side by side as the annotators saw
 * them (the first on the right where the first reads from the right).
 */
function judged(item: QueueItem): HTMLElement {
  const claim = h("p", { class: "claim", testid: "adj-claim", dir: "auto" }, item.claim);
  if (!item.text_b) return claim;
  return h(
    "div",
    { class: "adj-pair", testid: "adj-pair", dir: textDirection(item.claim) },
    h("div", {}, h("span", { class: "adj-pair-label" }, "First text"), claim),
    h("div", {}, h("span", { class: "adj-pair-label" }, "Second text"), h("p", { class: "claim", testid: "adj-text-b", dir: "auto" }, item.text_b)),
  );
}

function candidatesOf(item: QueueItem): number[] {
  return item.outcome.outcome === "evidence" ? [...item.outcome.sentences] : [];
}

/**
 * Scrolls the queue to the current row, and then on, to the next row's top, past a row
 * the top edge cuts through: the list rests on whole rows, cut only at its foot, where a
 * cut row says there is more.
 */
function showCurrentRow(list: HTMLElement): void {
  const row = list.querySelector<HTMLElement>(".current");
  const box = list.parentElement;
  if (!row || !box) return;
  row.scrollIntoView({ block: "nearest" });
  const top = box.getBoundingClientRect().top + box.clientTop + parseFloat(getComputedStyle(box).paddingTop || "0");
  const cut = [...list.children].find((r) => {
    const at = r.getBoundingClientRect();
    return at.top < top - 1 && at.bottom > top + 1;
  });
  if (cut && cut !== row) box.scrollTop += cut.getBoundingClientRect().bottom - top;
}
