// The work screen: one item at a time, answered by keyboard. Submitting waits for the
// backend's ack (the answer is committed by then), marks it saved and shows the next
// item; keys pressed meanwhile are kept and replayed on the next item, so a fast
// annotator never loses a keystroke.

import { h, mount } from "../../dom";
import { ApiError, api, type Ack, type Answer, type Item, type TaskKind } from "../../ipc";
import type { Screen } from "../screen";
import type { ItemBody } from "./body";
import { KIND_TITLES, claimCard, guidelines, helpView, progressView } from "./chrome";
import { choiceBody } from "./choice";
import { evidenceBody } from "./evidence";
import { keyAction, type KeyAction } from "./keys";
import { refuteBody } from "./refute";
import { Stopwatch } from "./stopwatch";

export interface WorkDeps {
  home: () => void;
  fail: (e: unknown) => void;
}

const HEADINGS: Record<TaskKind, string> = {
  evidence: "Evidence selection",
  refute: "Refutation writing",
  verify: "Refutation verification",
  label: "Claim labelling",
};

export function workScreen(kind: TaskKind, deps: WorkDeps): Screen {
  let item: Item | null = null;
  let body: ItemBody | null = null;
  let watch = new Stopwatch();
  let busy = false;
  const queued: string[] = [];
  // Whether the context is unfolded is the annotator's choice, kept from item to item.
  let contextOpen = true;
  let toggleContext = (): void => {};
  let helpOpen = false;

  const progress = h("div", { class: "work-progress" }, progressView(null));
  const itemRef = h("span", { class: "item-ref" });
  const saved = h("span", { class: "saved", testid: "saved-indicator", role: "status" });
  const main = h("section", { class: "work-main" }, h("p", { class: "muted" }, "Loading…"));
  const side = h("div", { class: "work-side" });
  const layout = h("div", { class: "work-layout" }, main, side);
  const helpSlot = h("div");
  const status = h("p", { class: "work-status", testid: "status", role: "status" });
  const comment = h("input", {
    class: "comment",
    testid: "comment",
    type: "text",
    placeholder: "Comment (optional) — press C",
    "aria-label": "Comment",
  });
  const el = h(
    "main",
    { class: "work", testid: `work-${kind}` },
    h(
      "div",
      { class: "work-top" },
      h("button", { class: "ghost work-home", testid: "home", title: "Home (Esc)", onclick: deps.home }, "← Home"),
      h("h1", {}, HEADINGS[kind]),
      itemRef,
      progress,
      saved,
    ),
    layout,
    helpSlot,
  );

  function say(text: string): void {
    mount(status, text);
  }

  /** Why the answer did not go in: next to the input when the body has a place for it. */
  function tell(message: string): void {
    if (body?.refused) body.refused(message);
    else say(message);
  }

  function setSide(panel: HTMLElement | null): void {
    mount(side, panel);
    el.classList.toggle("with-side", panel !== null);
  }

  const submitButton = h("button", { class: "primary", testid: "submit", onclick: () => void submit() });

  /** The Submit button looks ready only when the answer is; pressing it early says why. */
  function changed(): void {
    const ready = body?.ready() ?? false;
    submitButton.classList.toggle("not-ready", !ready);
    submitButton.setAttribute("aria-disabled", String(!ready));
  }

  function actions(it: Item): HTMLElement {
    mount(submitButton, it.previous ? "Replace answer " : "Submit ", h("kbd", {}, "Enter"));
    return h(
      "div",
      { class: "work-actions" },
      comment,
      h(
        "button",
        { testid: "previous", title: "Your previous item (Backspace)", onclick: () => void previous() },
        "Previous ",
        h("kbd", { class: "glyph" }, "⌫"),
      ),
      submitButton,
    );
  }

  function noItem(reason: string | null): HTMLElement {
    return h(
      "section",
      { class: "done-card", testid: "no-item" },
      h("h2", {}, `${KIND_TITLES[kind]}: nothing to do right now`),
      h("p", { class: "done-reason", testid: "no-item-reason" }, reason ?? "There are no items for you."),
      h(
        "div",
        { class: "actions" },
        h("button", { class: "primary", onclick: deps.home }, "Home ", h("kbd", {}, "Esc")),
        h("button", { onclick: () => void previous() }, "Your previous item ", h("kbd", { class: "glyph" }, "⌫")),
      ),
    );
  }

  function show(next: Item | null, reason: string | null): void {
    item = next;
    setSide(null);
    closeHelp();
    say("");
    if (!next) {
      body = null;
      mount(itemRef);
      mount(main, noItem(reason));
      blurField();
      return;
    }
    mount(progress, progressView(next.pace));
    const hooks = { side: setSide, changed };
    body =
      kind === "evidence" ? evidenceBody(next, hooks) : kind === "refute" ? refuteBody(next, hooks) : choiceBody(next, hooks);
    const card = claimCard(kind === "verify" ? "Original claim" : "Claim", next, contextOpen, (open) => {
      contextOpen = open;
    });
    toggleContext = card.toggle;
    comment.value = next.previous?.comment ?? "";
    mount(itemRef, "Item ", h("span", { testid: "item-task-id" }, String(next.task_id)));
    mount(
      main,
      next.previous
        ? h(
            "p",
            { class: "editing", testid: "editing-previous" },
            "You answered this item before; your answer is shown. Submitting replaces it.",
          )
        : null,
      card.el,
      guidelines(next.guidelines),
      body.el,
      actions(next),
      status,
    );
    changed();
    watch = new Stopwatch(undefined, !document.hidden);
    blurField();
    body.focus?.();
  }

  /** Keys go back to the work, not into the comment box of the item just answered. */
  function blurField(): void {
    const active = document.activeElement;
    if (active instanceof HTMLElement && el.contains(active)) active.blur();
  }

  function markSaved(ack: Ack): void {
    mount(saved, h("span", { "aria-hidden": "true" }, "✓ "), "Saved");
    saved.dataset["task"] = String(ack.task_id);
    saved.title = `Answer ${ack.ack} is in the project file`;
    saved.classList.add("fresh");
    window.setTimeout(() => saved.classList.remove("fresh"), 1500);
  }

  async function guarded(work: () => Promise<void>): Promise<void> {
    if (busy) return;
    busy = true;
    try {
      await work();
    } finally {
      busy = false;
      drain();
    }
  }

  async function loadNext(): Promise<void> {
    const next = await api.nextItem(kind);
    show(next.item, next.reason);
  }

  function submit(): Promise<void> {
    return guarded(async () => {
      if (!item || !body) return;
      const draft = await body.draft();
      if ("blocked" in draft) return tell(draft.blocked);
      const answer: Answer = {
        task_id: item.task_id,
        selected: [],
        no_evidence: false,
        text: null,
        label: null,
        comment: comment.value.trim() || null,
        duration_ms: watch.elapsedMs(),
        ...draft.answer,
      };
      try {
        markSaved(await api.submitAnswer(answer));
        await loadNext();
      } catch (e) {
        if (e instanceof ApiError && e.code === "check_failed") tell(e.message);
        else deps.fail(e);
      }
    });
  }

  function previous(): Promise<void> {
    return guarded(async () => {
      try {
        // An item not answered yet has no place in the answer history: ask for the last
        // answered one instead of the one before it.
        const before = item?.previous ? item.task_id : null;
        const prev = await api.previousItem(kind, before);
        if (prev) show(prev, null);
        else say("There is no earlier item of this kind.");
      } catch (e) {
        deps.fail(e);
      }
    });
  }

  function openHelp(): void {
    helpOpen = true;
    mount(helpSlot, helpView(kind, body?.count ?? 0, closeHelp));
  }

  function closeHelp(): void {
    helpOpen = false;
    mount(helpSlot);
  }

  function run(action: KeyAction): void {
    if (helpOpen) {
      closeHelp();
      if (action.type === "help" || action.type === "escape") return;
    }
    if (body?.act(action)) return;
    if (action.type === "submit") void submit();
    else if (action.type === "previous") void previous();
    else if (action.type === "comment" && body) comment.focus();
    else if (action.type === "context") toggleContext();
    else if (action.type === "help") openHelp();
    else if (action.type === "escape") deps.home();
  }

  function drain(): void {
    while (!busy && queued.length > 0) {
      const key = queued.shift() ?? "";
      const action = keyAction(kind, key, body?.count ?? 0);
      if (action) run(action);
    }
  }

  // Text fields keep their keys, except Enter (submit) and Esc (back to the keys).
  el.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (!(t instanceof HTMLInputElement) || ev.isComposing) return;
    if (ev.key === "Enter") {
      ev.preventDefault();
      void submit();
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      t.blur();
    }
  });

  // Clicking a card or button leaves the keyboard with the work, not on the button.
  el.addEventListener("mousedown", (ev) => {
    if (ev.target instanceof Element && ev.target.closest("button, summary, .option")) ev.preventDefault();
  });

  const onVisibility = (): void => watch.setVisible(!document.hidden);

  return {
    el,
    onKey(ev: KeyboardEvent): boolean {
      const action = keyAction(kind, ev.key, body?.count ?? 0);
      if (!action) return false;
      if (busy) queued.push(ev.key);
      else run(action);
      return true;
    },
    shown(): void {
      document.addEventListener("visibilitychange", onVisibility);
      void guarded(async () => {
        try {
          await loadNext();
        } catch (e) {
          deps.fail(e);
        }
      });
    },
    leave(): void {
      document.removeEventListener("visibilitychange", onVisibility);
    },
  };
}
