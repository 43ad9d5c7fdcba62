// Turning failures into one readable sentence for the error banner.

import { ApiError, type Location } from "./ipc";

function where(loc: Location): string {
  let text = loc.file;
  if (loc.line > 0) text += `, line ${loc.line}`;
  if (loc.field) text += `, field "${loc.field}"`;
  return text;
}

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.location ? `${where(e.location)}: ${e.message}` : e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** A message as a sentence: capital first letter, full stop at the end. */
export function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const first = t.charAt(0).toLocaleUpperCase() + t.slice(1);
  return /[.!?…]$/u.test(first) ? first : `${first}.`;
}

/** A failure as a sentence, its place in a file first when there is one. */
export function readable(e: unknown): string {
  if (e instanceof ApiError) return e.location ? `${where(e.location)}: ${sentence(e.message)}` : sentence(e.message);
  return sentence(errorText(e));
}

/**
 * A failure in plain words, for showing next to the field it is about: what could not be
 * done (`doing`, e.g. "Could not write the gold file"), then the reason.
 */
export function plainError(doing: string, e: unknown): string {
  return `${doing}. ${readable(e)}`;
}
