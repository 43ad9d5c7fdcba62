// What an annotator had on an item when they left it without submitting (Esc, Home, another
// screen): kept for this session and put back when the same item shows again, since the
// item stays reserved for them.

/** The unsent state of one item; each kind fills in its own fields. */
export interface WorkDraft {
  selected?: string[];
  noEvidence?: boolean;
  cursor?: number;
  label?: string;
  text?: string;
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
    (d.text !== undefined && d.text !== original) ||
    d.comment.trim() !== ""
  );
}
