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
