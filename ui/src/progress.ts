// How far a person is with a kind of work, in one wording on every screen that says it
// (the home's cards, the lead's own work, the work screen's top bar, in a project or a
// pack): the home said "12 to do" and "All 12 done" where the work screen said "0 of 12
// done" and "12 of 12 done" for the same figures.

import { count } from "./format";
import type { Pace } from "./ipc";

/** A piece of the wording; the numbers are marked so a view can wrap them (test ids). */
export interface ProgressPart {
  text: string;
  figure?: "done" | "total";
}

/**
 * "5 of 18 done"; with more items left than are counted, what is done only, "7 done ·
 * more to do" (the count of items left stops at 20, so it does not tell the project's
 * size); "Nothing to do yet" with no pace or no items at all.
 */
export function progressParts(pace: Pace | null): ProgressPart[] {
  if (!pace || (pace.total === 0 && !pace.more)) return [{ text: "Nothing to do yet" }];
  const done: ProgressPart = { text: count(pace.done), figure: "done" };
  if (pace.more) return [done, { text: " done · more to do" }];
  return [done, { text: " of " }, { text: count(pace.total), figure: "total" }, { text: " done" }];
}

/** The wording as one string. */
export function progressText(pace: Pace | null): string {
  return progressParts(pace)
    .map((p) => p.text)
    .join("");
}
