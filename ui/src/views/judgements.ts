// How the verdicts and labels read on screen. The values themselves come from the
// generated bindings (core's one list); a new one fails the typecheck here until it has
// its text.

import type { Judgement, Label, Verdict } from "../ipc";
import { LABELS, VERDICTS } from "../ipc";

const TEXT: Record<Judgement, string> = {
  contradicts: "Contradicts",
  does_not_contradict: "Does not contradict",
  malformed: "Malformed",
  SUPPORTED: "Supported",
  REFUTED: "Refuted",
  "NOT ENOUGH INFO": "Not enough info",
  FAILED: "Failed",
};

/** A verdict or label as a person reads it. */
export function judgementText(j: Judgement): string {
  return TEXT[j];
}

/** The verdicts a verification offers, in key order (1 first). */
export const VERDICT_CHOICES: readonly Verdict[] = VERDICTS;

/** The labels a claim can be given, in key order (1 first). */
export const LABEL_CHOICES: readonly Label[] = LABELS;
