// What each kind of item contributes to the work screen: its part of the page, its keys,
// and its part of the answer.

import type { Answer } from "../../ipc";
import type { WorkDraft } from "./draft";
import type { KeyAction } from "./keys";

/** The kind-specific fields of an answer, or why it cannot be sent yet. */
export type Draft = { answer: Partial<Answer> } | { blocked: string };

export interface ItemBody {
  el: HTMLElement;
  /** How many options or choices the keys can address. */
  count: number;
  /** Acts on a key; false when the key is not for this body. */
  act(action: KeyAction): boolean;
  /** Whether the answer as it stands can be submitted (drives the Submit button's look). */
  ready(): boolean;
  /** The answer as it stands; may wait for a check of the latest text. */
  draft(): Promise<Draft>;
  /** The backend refused the answer (a failed check): say why next to the input. */
  refused?(message: string): void;
  /** The unsent answer as it stands, to keep as a draft. */
  keep(): Omit<WorkDraft, "comment">;
  /** Puts the keyboard where work starts on this item. */
  focus?(): void;
}

/** What a body may ask of the work screen around it. */
export interface BodyHooks {
  /** Opens or closes the panel beside the item (the passage of a sentence). */
  side: (panel: HTMLElement | null) => void;
  /** The answer changed: whether it is ready may have too. */
  changed: () => void;
}
