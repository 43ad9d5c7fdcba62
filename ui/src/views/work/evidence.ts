// Evidence selection: the candidate sentences (and, unmarked among them, the trick) as
// numbered cards; any subset, or "no evidence".

import { h } from "../../dom";
import type { Item } from "../../ipc";
import type { BodyHooks, Draft, ItemBody } from "./body";
import { pieces } from "./chrome";
import type { KeyAction } from "./keys";
import { passagePanel } from "./passage";
import {
  canSubmit,
  fromPrevious,
  isSelected,
  moveCursor,
  toggle,
  toggleNoEvidence,
  type Selection,
} from "./selection";

export function evidenceBody(item: Item, hooks: BodyHooks): ItemBody {
  let sel: Selection = fromPrevious(item.previous, item.options);
  let shownDoc: number | null = null;

  const cards = item.options.map((option, i) =>
    h(
      "div",
      { class: "option", role: "checkbox", testid: `option-${i + 1}`, onclick: () => set(toggle(sel, item.options, i)) },
      h("span", { class: "option-key", "aria-hidden": "true" }, String(i + 1)),
      h("span", { class: "option-text" }, ...pieces(option.pieces)),
      h(
        "button",
        {
          class: "ghost option-doc",
          testid: `show-doc-${i + 1}`,
          title: "Show in document (D)",
          onclick: (ev) => {
            ev.stopPropagation();
            openDoc(i);
          },
        },
        "In document",
      ),
    ),
  );
  const none = h(
    "div",
    { class: "option option-none", role: "checkbox", testid: "no-evidence", onclick: () => set(toggleNoEvidence(sel)) },
    h("span", { class: "option-key", "aria-hidden": "true" }, "0"),
    h("span", { class: "option-text" }, "No evidence — none of these sentences is what the guideline asks for"),
  );

  function paint(): void {
    item.options.forEach((option, i) => {
      const card = cards[i];
      if (!card) return;
      const on = isSelected(sel, option);
      card.classList.toggle("selected", on);
      card.classList.toggle("cursor", i === sel.cursor);
      card.classList.toggle("shown", i === shownDoc);
      card.setAttribute("aria-checked", String(on));
    });
    none.classList.toggle("selected", sel.noEvidence);
    none.setAttribute("aria-checked", String(sel.noEvidence));
  }

  function set(next: Selection): void {
    sel = next;
    paint();
    hooks.changed();
  }

  function closeDoc(): void {
    shownDoc = null;
    hooks.side(null);
    paint();
  }

  function openDoc(i: number): void {
    const option = item.options[i];
    if (!option) return;
    sel = { ...sel, cursor: i };
    shownDoc = i;
    hooks.side(passagePanel(item.task_id, option.id, i + 1, closeDoc));
    paint();
  }

  paint();
  return {
    el: h(
      "section",
      { class: "options", "aria-label": "Candidate sentences" },
      h("div", { class: "options-list" }, ...cards),
      none,
    ),
    count: item.options.length,
    act(action: KeyAction): boolean {
      switch (action.type) {
        case "toggle":
          set(toggle(sel, item.options, action.index));
          cards[action.index]?.scrollIntoView({ block: "nearest" });
          if (shownDoc !== null) openDoc(action.index);
          return true;
        case "no-evidence":
          set(toggleNoEvidence(sel));
          return true;
        case "cursor":
          set(moveCursor(sel, item.options.length, action.delta));
          cards[sel.cursor]?.scrollIntoView({ block: "nearest" });
          if (shownDoc !== null) openDoc(sel.cursor);
          return true;
        case "toggle-cursor":
          set(toggle(sel, item.options, sel.cursor));
          return true;
        case "document":
          if (shownDoc === sel.cursor) closeDoc();
          else openDoc(sel.cursor);
          return true;
        case "escape":
          if (shownDoc === null) return false;
          closeDoc();
          return true;
        default:
          return false;
      }
    },
    ready: () => canSubmit(sel),
    async draft(): Promise<Draft> {
      if (!canSubmit(sel)) return { blocked: `Select the sentences that are evidence (1–${item.options.length}), or 0 for no evidence.` };
      return { answer: { selected: sel.selected, no_evidence: sel.noEvidence } };
    },
  };
}
