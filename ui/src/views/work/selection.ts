// What the annotator has chosen on an evidence item: pure state, so the rules (options
// and "no evidence" exclude each other; a cursor for "show in document") are testable.

import type { ItemOption, PreviousAnswer } from "../../ipc";

export interface Selection {
  /** Opaque option ids, in display order. */
  selected: string[];
  noEvidence: boolean;
  /** The option "show in document" and Space act on, from 0. */
  cursor: number;
}

export function emptySelection(): Selection {
  return { selected: [], noEvidence: false, cursor: 0 };
}

/** The earlier answer to an item, so going back shows what was chosen. */
export function fromPrevious(prev: PreviousAnswer | null, options: ItemOption[]): Selection {
  if (!prev) return emptySelection();
  const selected = options.filter((o) => prev.selected.includes(o.id)).map((o) => o.id);
  const first = options.findIndex((o) => selected.includes(o.id));
  return { selected, noEvidence: prev.no_evidence && selected.length === 0, cursor: Math.max(first, 0) };
}

/** Toggles option `index` (from 0); choosing a sentence undoes "no evidence". */
export function toggle(sel: Selection, options: ItemOption[], index: number): Selection {
  const option = options[index];
  if (!option) return sel;
  const on = sel.selected.includes(option.id);
  const ids = new Set(on ? sel.selected.filter((id) => id !== option.id) : [...sel.selected, option.id]);
  return {
    selected: options.filter((o) => ids.has(o.id)).map((o) => o.id),
    noEvidence: false,
    cursor: index,
  };
}

/** "No evidence" clears any chosen sentence, and pressing it again takes it back. */
export function toggleNoEvidence(sel: Selection): Selection {
  return { ...sel, selected: [], noEvidence: !sel.noEvidence };
}

export function moveCursor(sel: Selection, count: number, delta: number): Selection {
  if (count === 0) return sel;
  return { ...sel, cursor: (sel.cursor + delta + count) % count };
}

export function isSelected(sel: Selection, option: ItemOption): boolean {
  return sel.selected.includes(option.id);
}

export function canSubmit(sel: Selection): boolean {
  return sel.noEvidence || sel.selected.length > 0;
}
