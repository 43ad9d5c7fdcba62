// The lead's adjudication queue: tasks sorted by disagreement, each annotator's answer and
// comment side by side, evidence candidates in their documents, and one key to take an
// answer or set the decision by hand. Decisions keep who, when and why, and can be undone.

import { capOf, keyRows, meaningOf } from "../keymap";
import { h, mount } from "../dom";
import { errorText } from "../errors";
import { claimNumber } from "../format";
import { ApiError, api, type GoldRequest, type Judgement, type QueueCandidate, type QueueItem } from "../ipc";
import {
  answerText,
  chosenSentences,
  decisionText,
  documentGroups,
  handAnswer,
  labelsFor,
  labelText,
  nextIndex,
  outcomeText,
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
    ["comment", "the reason kept with the decision (Enter returns to the keys)"],
    ["category", "of the disagreement, from the project's list (Enter returns to the keys)"],
    ["undo", "on this item"],
    ["next", "the next item"],
    ["back", "the item before"],
    "export",
    ["escape", "or leave deciding by hand"],
    "help",
  ]),
];

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
  const category = h("select", {
    class: "text-input adj-category",
    testid: "adj-category",
    "aria-label": "Category of the disagreement",
  });
  for (const field of [reason, category] as HTMLElement[]) {
    field.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === "Escape") {
        ev.preventDefault();
        field.blur();
      }
    });
  }
  function listCategories(list: string[]): void {
    const chosen = category.value;
    const option = (value: string, text: string): HTMLOptionElement => {
      const o = h("option", {}, text);
      o.value = value;
      return o;
    };
    mount(category, option("", "No category — G"), ...list.map((c) => option(c, c)));
    category.value = list.includes(chosen) ? chosen : "";
    category.hidden = list.length === 0;
  }

  const el = h(
    "main",
    { class: "adjudicate", testid: "adjudicate" },
    h(
      "div",
      { class: "dash-head" },
      h("div", {}, h("h1", {}, "Adjudication"), h("p", { class: "muted" }, "Items the counted annotators disagree on, most disagreement first; items with fewer than two counted answers after them. ", count)),
      h("span", { class: "spacer" }),
      h("button", { testid: "adj-export", onclick: () => deps.export() }, "Export ", h("kbd", {}, capOf("export"))),
      h("button", { class: "ghost", testid: "adj-keys", onclick: () => toggleHelp() }, "Keys ", h("kbd", {}, "?")),
      h("button", { testid: "adj-home", onclick: () => deps.home() }, "Home ", h("kbd", {}, "Esc")),
    ),
    notice,
    h("div", { class: "adj-grid" }, h("nav", { class: "panel adj-queue", "aria-label": "Queue", tabindex: "0" }, list), detail),
  );

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

  function answerCard(item: QueueItem, i: number): HTMLElement {
    const a = item.answers[i];
    if (!a) return h("div");
    const taken = item.decision?.taken_from === a.annotator;
    return h(
      "div",
      { class: `adj-answer${a.counted ? "" : " not-counted"}${taken ? " taken" : ""}`, testid: `adj-answer-${a.annotator}` },
      h(
        "div",
        { class: "adj-answer-head" },
        // While deciding by hand the digits toggle sentences, so only then do the
        // sentences, not the answers, show keys.
        i < 9 && a.counted && !editing ? h("kbd", {}, String(i + 1)) : null,
        h("span", { class: "adj-who" }, a.annotator),
        a.rejected
          ? h("span", { class: "badge badge-danger", testid: `adj-rejected-${a.annotator}` }, "REJECTED (picked the trick)")
          : a.counted
            ? null
            : h("span", { class: "badge badge-danger" }, "NOT COUNTED"),
        // A rejected answer's badge already says it picked the trick.
        a.trick_failed && !a.rejected ? h("span", { class: "badge badge-danger", title: "Selected the trick sentence here" }, "TRICK") : null,
        taken ? h("span", { class: "badge badge-ok" }, "TAKEN") : null,
      ),
      answerValue(a.annotator, a.answer, item),
      h("div", { class: a.comment ? "adj-comment" : "adj-comment faint", dir: "auto" }, a.comment ?? "no comment"),
    );
  }

  /** What an answer says: the text of each sentence it chose, or its label in words. */
  function answerValue(who: string, answer: QueueItem["answers"][number]["answer"], item: QueueItem): HTMLElement {
    const chosen = chosenSentences(answer, item.candidates);
    if (!chosen || chosen.sentences.length === 0) {
      return h("div", { class: "adj-answer-value", testid: `adj-value-${who}` }, answerText(answer, item.candidates));
    }
    return h(
      "ol",
      // A long answer scrolls in its card, so the list is a Tab stop: the arrow keys scroll
      // it for someone without a mouse.
      { class: "adj-answer-value adj-answer-sentences", testid: `adj-value-${who}`, tabindex: "0", "aria-label": `${who}'s sentences` },
      ...chosen.sentences.map(({ number, text }) =>
        h("li", {}, h("span", { class: "adj-num", title: `Candidate ${number}` }, String(number)), h("span", { class: "adj-answer-text", dir: "auto" }, text)),
      ),
      chosen.outside > 0 ? h("li", { class: "muted small" }, `+${chosen.outside} not shown`) : null,
    );
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
              return h(
                "li",
                { class: `adj-sentence${on ? " on" : ""}`, testid: `adj-sentence-${number}` },
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
        h("p", { class: "claim", testid: "adj-claim", dir: "auto" }, item.claim),
        h("div", { class: "adj-answers" }, ...item.answers.map((_, i) => answerCard(item, i))),
        h(
          "div",
          { class: "adj-outcome" },
          h("span", { testid: "adj-outcome" }, outcomeText(item.outcome, item.candidates, item.share_agreeing !== null)),
          item.decision
            ? h("p", { class: "adj-decision", testid: "adj-decision" }, decisionText(item.decision, item.candidates), " ", h("kbd", {}, "U"), " undoes")
            : null,
        ),
        h("div", { class: "adj-actions" }, category, reason, h("span", { class: "muted small" }, `1–9 take an answer · ${capOf("by-hand")} decide by hand · ? keys`)),
        labelPicker(item),
        candidatesView(item),
        passage,
      ),
    );
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
      category.value = "";
      editing = null;
      await reload();
      const decided = items.find((i) => i.task_id === item.task_id) ?? item;
      mount(notice, done(decided));
      if (advance) at = nextIndex(items, items.indexOf(decided));
      draw();
    } catch (e) {
      if (e instanceof ApiError && e.code === "conflict") {
        // Decided meanwhile elsewhere: the queue on screen is stale; read it again and say so.
        await reload().catch(deps.fail);
        mount(notice, e.message);
        draw();
      } else deps.fail(e);
    } finally {
      busy = false;
    }
  }

  const why = (): string | null => reason.value.trim() || null;
  const kindOf = (): string | null => category.value || null;
  const said = (item: QueueItem): string =>
    item.decision
      ? `${claimNumber(item.claim_number)}: ${decisionText(item.decision, item.candidates)}`
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
      if (key === "Escape" && passageOf) {
        closePassage();
        return true;
      }
      const meaning = meaningOf(key);
      if (meaning === "help") toggleHelp();
      else if (meaning === "escape") deps.home();
      else if (meaning === "next") go(at + 1);
      else if (meaning === "back") go(at - 1);
      else if (meaning === "export") deps.export();
      else if (meaning === "comment") {
        ev.preventDefault();
        reason.focus();
      } else if (meaning === "category" && !category.hidden) {
        ev.preventDefault();
        category.focus();
      } else if (meaning === "undo") undo();
      else if (meaning === "document" && (item?.kind === "evidence" || item?.kind === "label")) showing = true;
      else if (meaning === "by-hand" && item && item.kind !== "refute") {
        editing = item.kind === "evidence" ? candidatesOf(item) : [];
        draw();
      } else if (meaning === "number") take(Number(key) - 1);
      else return false;
      return true;
    },
    shown(): void {
      api.settings().then((s) => listCategories(s.disagreement_categories), deps.fail);
      reload().then(draw, deps.fail);
    },
  };
}

/** Editing starts from the current gold sentences, so a small fix is a small edit. */
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
