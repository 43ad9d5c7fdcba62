// What an annotator had on an item when they left it without submitting (Esc, Home, another
// screen): kept for this session and put back when the same item shows again, since the
// item stays reserved for them.

import type { Given } from "../../ipc";

/** The unsent state of one item; each kind fills in its own fields. */
export interface WorkDraft {
  selected?: string[];
  noEvidence?: boolean;
  cursor?: number;
  label?: string;
  text?: string;
  /** A design item's answers by question, and the question the cursor was on. */
  answers?: Record<string, Given>;
  question?: number;
  comment: string;
}

/** Drafts by task id, for one person in one session. */
export type Drafts = Map<number, WorkDraft>;

/** Whether a draft holds anything worth restoring. */
export function hasContent(d: WorkDraft, original: string): boolean {
  return (
    (d.selected?.length ?? 0) > 0 ||
    d.noEvidence === true ||
    d.label !== undefined ||
    Object.keys(d.answers ?? {}).length > 0 ||
    (d.text !== undefined && d.text !== original) ||
    d.comment.trim() !== ""
  );
}
