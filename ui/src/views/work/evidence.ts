// Evidence selection: the candidate sentences (and, unmarked among them, the trick) as
// numbered cards; any subset, or "no evidence".

import { h, textDirection } from "../../dom";
import type { Item } from "../../ipc";
import type { BodyHooks, Draft, ItemBody } from "./body";
import { pieces } from "./chrome";
import type { WorkDraft } from "./draft";
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

/** A kept draft's selection, limited to the options this item shows. */
function fromDraft(kept: WorkDraft, item: Item): Selection {
  const selected = item.options.filter((o) => kept.selected?.includes(o.id)).map((o) => o.id);
  const cursor = Math.min(Math.max(kept.cursor ?? 0, 0), Math.max(item.options.length - 1, 0));
  return { selected, noEvidence: (kept.noEvidence ?? false) && selected.length === 0, cursor };
}

export function evidenceBody(item: Item, hooks: BodyHooks, kept: WorkDraft | null = null): ItemBody {
  let sel: Selection = kept ? fromDraft(kept, item) : fromPrevious(item.previous, item.options);
  let shownDoc: number | null = null;

  // Each card holds a checkbox (a Tab stop; Space on it selects it, as the cursor moves
  // there on focus) and, beside it rather than inside, the "In document" button.
  const checks = item.options.map((option, i) =>
    h(
      "div",
      { class: "option-check", role: "checkbox", tabindex: "0", testid: `option-${i + 1}` },
      h("span", { class: "option-key", "aria-hidden": "true" }, String(i + 1)),
      h("span", { class: "option-text", dir: "auto" }, ...pieces(option.pieces)),
    ),
  );
  const cards = item.options.map((_, i) =>
    h(
      "div",
      { class: "option", testid: `card-${i + 1}`, onclick: () => set(toggle(sel, item.options, i)) },
      checks[i],
      h(
        "button",
        {
          class: "ghost option-doc",
          testid: `show-doc-${i + 1}`,
          title: "Show in document (D)",
          "aria-label": "Show in document",
          onclick: (ev) => {
            ev.stopPropagation();
            openDoc(i);
          },
        },
        h("span", { class: "doc-label" }, "In document"),
      ),
    ),
  );
  checks.forEach((check, i) =>
    check.addEventListener("focus", () => {
      if (sel.cursor !== i) set({ ...sel, cursor: i });
    }),
  );
  const none = h(
    "div",
    {
      class: "option option-none option-check",
      role: "checkbox",
      tabindex: "0",
      testid: "no-evidence",
      onclick: () => set(toggleNoEvidence(sel)),
    },
    h("span", { class: "option-key", "aria-hidden": "true" }, "0"),
    h("span", { class: "option-text", dir: "ltr" }, "No evidence — none of these sentences is what the guideline asks for"),
  );

  function paint(): void {
    item.options.forEach((option, i) => {
      const card = cards[i];
      if (!card) return;
      const on = isSelected(sel, option);
      card.classList.toggle("selected", on);
      card.classList.toggle("cursor", i === sel.cursor);
      card.classList.toggle("shown", i === shownDoc);
      checks[i]?.setAttribute("aria-checked", String(on));
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
      // The rows mirror with the claim's script: in an Arabic item the key sits at the
      // sentence's start, on the right, and "In document" at its end.
      { class: "options", "aria-label": "Candidate sentences", dir: textDirection(item.claim) },
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
          if (document.activeElement === none) set(toggleNoEvidence(sel));
          else set(toggle(sel, item.options, sel.cursor));
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
    keep: () => ({ selected: sel.selected, noEvidence: sel.noEvidence, cursor: sel.cursor }),
    async draft(): Promise<Draft> {
      if (!canSubmit(sel)) return { blocked: `Select the sentences that are evidence (1–${item.options.length}), or 0 for no evidence.` };
      return { answer: { selected: sel.selected, no_evidence: sel.noEvidence } };
    },
  };
}
