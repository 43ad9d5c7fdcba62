// Number and text formatting for display.

/** 4086 -> "4 086", grouped with narrow no-break spaces like the big counts on screen. */
export function count(n: number): string {
  return digitGroups(n).join("\u202f");
}

/**
 * 1234567 -> ["1", "234", "567"]. Counts show their groups as spacing between spans, so
 * the text stays the plain integer that scripts and copy-paste read.
 */
export function digitGroups(n: number): string[] {
  const digits = String(Math.trunc(Math.abs(n)));
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) {
    groups.unshift(digits.slice(Math.max(0, end - 3), end));
  }
  if (n < 0 && groups.length) groups[0] = `-${groups[0]}`;
  return groups;
}

/**
 * A number to `digits` decimals with a true minus (U+2212) below zero, as typeset figures
 * write it, not the hyphen toFixed gives: "−0.061". Every kappa on screen goes through it.
 */
export function fixed(value: number, digits: number): string {
  return value.toFixed(digits).replace(/^-/, "\u2212");
}

/** The one way the app writes a day: "30 Nov 2026" (in UTC for due dates, as the CLI
 * prints them; else in local time). */
export function dayText(ms: number, utc = false): string {
  return new Date(ms).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", ...(utc ? { timeZone: "UTC" } : {}) });
}

/** A time of day on the 24-hour clock: "15:23" (with `seconds`, "15:23:52"). */
export function timeText(ms: number, seconds = false): string {
  return new Date(ms).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", ...(seconds ? { second: "2-digit" } : {}), hourCycle: "h23" });
}

/** A moment, in local time: "30 Nov 2026, 15:23". */
export function momentText(ms: number): string {
  return `${dayText(ms)}, ${timeText(ms)}`;
}

/** "1 claim", "2 claims". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** The last part of a file path, for titles. */
/** Whether a project's path is a team server's address (connected), not a file here. */
export function isServerAddress(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/** Where a file goes when the project is a server: nowhere by default, the lead chooses. */
export const CHOOSE_HERE = "Choose… a file on this computer";

export function fileName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}

/** Minutes as people say them: "under a minute", "47 min", "2 h 5 min". */
export function minutes(m: number): string {
  if (!Number.isFinite(m) || m < 1) return "under a minute";
  const total = Math.round(m);
  const hours = Math.floor(total / 60);
  const rest = total % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** A failure rate as a percentage; "—" when there is nothing to rate yet. */
export function percent(rate: number | null): string {
  return rate === null ? "—" : `${Math.round(rate * 100)}%`;
}

/**
 * A claim's number in its project, as every screen names it: "#1234". The imported id
 * (often a hash, as COVID-Fact's) is shown beside it as provenance; search takes "#1234".
 */
export function claimNumber(id: number): string {
  return `#${id}`;
}
