// Packs in the app. In a pack (an annotator's share of the work, on their laptop): what
// the top bar says and the home's "Return results". In the lead's project: the packs out,
// returned and expired, and "Merge results…" with each file's outcome.

import { h, mount } from "../dom";
import { dayText, fileName, plural } from "../format";
import { api, pickPacks, type Manifest, type MergeOutcome, type PackSummary, type TaskKind } from "../ipc";
import { oneAtATime } from "../once";

/** A day as people read it on a due date: "30 Nov 2026" (UTC, as the CLI prints). */
export function dueDate(ms: number): string {
  return dayText(ms, true);
}

/** The top bar's words for a pack: "Pack for ana · due 30 Nov 2026", or that it expired. */
export function packBadgeText(m: Manifest, now = Date.now()): string {
  const when = m.expires_at <= now ? "expired" : "due";
  return `Pack for ${m.annotator} · ${when} ${dueDate(m.expires_at)}`;
}

/** Paths pasted into the merge field: one per line, blank lines ignored. */
export function pathsFrom(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** One merged file's outcome in a sentence. */
export function outcomeText(o: MergeOutcome): string {
  const name = fileName(o.file);
  if (o.error) {
    // The backend's message starts with the full path; the name is enough here.
    const msg = o.error.message;
    return msg.startsWith(o.file) ? `${name}${msg.slice(o.file.length)}` : `${name}: ${msg}`;
  }
  const r = o.report;
  if (!r) return `${name}: nothing was merged`;
  const parts = [`${plural(r.added, "answer")} from ${r.annotator} added`, `${r.already} already there`];
  if (r.released > 0) parts.push(`${plural(r.released, "unanswered item")} back in the pool`);
  if (r.problems > 0) parts.push(`${plural(r.problems, "reported problem")} added to your list`);
  if (r.late > 0) parts.push(`${plural(r.late, "late answer")} left out (others finished those items)`);
  if (r.clamped > 0) parts.push(`${r.clamped} with a time out of range brought into range`);
  // Refused answers are named with the reason the project's checks gave; none was stored.
  const refused = r.refused.map((a) => `answer ${a.uuid} refused: ${a.reason}`);
  return [`${name}: ${parts.join(", ")}`, ...refused].join("; ");
}

/** The words for a pack's state in the lead's list. */
export function stateText(p: PackSummary): string {
  if (p.state === "returned") return "returned";
  if (p.state === "expired") return "expired (items back in the pool)";
  return "out";
}

/** What the pack's home says about working in it and its due date. */
export function packAdvice(m: Manifest, now = Date.now()): string {
  if (m.expires_at <= now) {
    return `This pack expired on ${dueDate(m.expires_at)}: the lead cannot merge its results any more and its items went back to the pool. Ask the lead for a new pack.`;
  }
  return `Work here offline; every answer is saved in this file as you make it. Return the results by ${dueDate(m.expires_at)}: after that the lead cannot merge them and the items go back to the pool.`;
}

/** The top bar's mark of a pack. */
export function packBadge(m: Manifest): HTMLElement {
  return h("span", { class: "badge badge-pack", testid: "bar-pack", title: `Pack ${m.pack_id}` }, packBadgeText(m));
}

/** The home's panel in a pack: whose it is, and "Return results". */
export function returnPanel(m: Manifest, fail: (e: unknown) => void): HTMLElement {
  const said = h("div", { class: "return-said", testid: "results-said", "aria-live": "polite" });
  const button = h("button", { class: "primary", testid: "return-results" }, "Return results");
  button.addEventListener("click", () => {
    button.disabled = true;
    api
      .returnResults(null)
      .then((path) =>
        mount(
          said,
          h("p", {}, "Results written to ", h("code", { testid: "results-path" }, path), "."),
          h(
            "p",
            { class: "muted" },
            `Send this file to your lead (by e-mail, a shared folder or a USB stick); they merge it with “Merge results…”. `,
            "You can keep working here: return results again later to send your newer answers as well.",
          ),
        ),
      )
      .catch(fail)
      .finally(() => {
        button.disabled = false;
      });
  });
  return h(
    "section",
    { class: "panel pack-panel", testid: "pack-panel" },
    h("h3", {}, `A pack for ${m.annotator}`),
    h("p", { class: "muted small" }, packAdvice(m)),
    h("div", { class: "pack-actions" }, button),
    said,
  );
}

/** The kinds a pack holds, in the words of the issue form, which the packs table uses too:
 * the table said "all kinds" for what the form called "Evidence, verification and labels". */
export const PACK_KINDS: readonly (readonly [TaskKind | null, string])[] = [
  [null, "Evidence, verification and labels"],
  ["evidence", "Evidence only"],
  ["verify", "Verification only"],
  ["label", "Labels only"],
];

/** A pack's kinds in words. */
export function packKindName(kind: TaskKind | null): string {
  return PACK_KINDS.find(([k]) => k === kind)?.[1] ?? `${kind ?? "every kind"} only`;
}

/** A pack's id as the list shows it: its first 8 characters, enough to tell packs apart. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** The question asked before a pack with no answers is merged. */
export function unansweredQuestion(o: MergeOutcome): string {
  return `${fileName(o.file)} has no answers yet: it looks like the file as issued, and its annotator may still be working on their copy. Merge it anyway only to take the work back: the pack is marked returned and its items go back to the pool.`;
}

function packRow(p: PackSummary): HTMLElement {
  return h(
    "tr",
    { testid: `pack-${p.annotator}-${shortId(p.id)}`, "data-pack": p.id },
    h("td", {}, h("code", { testid: "pack-id", title: p.id }, shortId(p.id))),
    h("th", { dir: "auto" }, p.annotator),
    h("td", { testid: "pack-kind" }, packKindName(p.kind)),
    h("td", { class: "num" }, String(p.items)),
    h("td", {}, dueDate(p.created_at)),
    h("td", {}, dueDate(p.expires_at)),
    h("td", { testid: "pack-state" }, stateText(p)),
    h("td", { class: "num", testid: "pack-merged" }, String(p.merged)),
  );
}

/** The lead's panel: packs issued, and merging returned ones. */
export function packsPanel(
  fail: (e: unknown) => void,
  merged: () => void,
  issue?: () => void,
): { el: HTMLElement; load: () => void } {
  const rows = h("tbody", { testid: "packs" });
  const outcomes = h("ul", { class: "merge-outcomes", testid: "merge-outcomes" });
  const ask = h("div", { class: "merge-ask-slot" });
  const field = h("textarea", {
    class: "text-input merge-paths",
    testid: "merge-path",
    placeholder: "Paste the path of a returned .fdpack file, one per line",
    "aria-label": "Returned pack files",
    dir: "auto",
  });
  field.rows = 2;

  // With no pack, a sentence in place of a table of headings over nothing.
  const table = h(
    "table",
    { class: "table" },
    h("thead", {}, h("tr", {}, ...["Pack", "For", "Kind", "Items", "Issued", "Due", "State", "Merged"].map((t) => h("th", {}, t)))),
    rows,
  );
  const none = h("p", { class: "muted", testid: "no-packs" }, "No packs yet: issue one for an annotator to take away.");

  async function load(): Promise<void> {
    const list = await api.packs();
    mount(rows, ...list.map(packRow));
    table.hidden = list.length === 0;
    none.hidden = list.length > 0;
  }

  /** Packs with no answers, held back from the merge until the lead says. */
  function askAbout(empty: MergeOutcome[]): void {
    if (!empty.length) return void mount(ask);
    // The safe answer is the primary one and has the focus: the question warns that the
    // annotator may still be working, so taking the work back must be a deliberate click.
    const giveBack = h("button", { class: "danger", testid: "merge-give-back" }, "Take the work back");
    const keep = h("button", { class: "primary", testid: "merge-keep" }, "Keep it out");
    giveBack.addEventListener("click", () => void merge(empty.map((o) => o.file), true));
    keep.addEventListener("click", () => {
      mount(ask);
      mount(outcomes, ...empty.map((o) => h("li", { class: "refused", testid: "merge-outcome" }, `${fileName(o.file)}: not merged; the pack is still out.`)));
    });
    mount(
      ask,
      h(
        "div",
        { class: "merge-ask", testid: "merge-ask", role: "alertdialog", "aria-label": "Merge a pack with no answers?" },
        ...empty.map((o) => h("p", { testid: "merge-question" }, unansweredQuestion(o))),
        h("div", { class: "pack-actions" }, keep, giveBack),
      ),
    );
    keep.focus();
  }

  // One merge at a time: the second click of a double-click would merge the same files
  // again and show "0 added, all already there" over what the first one did.
  const merge = oneAtATime(async (paths: string[], giveBack: boolean = false): Promise<void> => {
    if (!paths.length) return;
    try {
      const results = await api.mergePacks(paths, giveBack);
      const empty = results.filter((o) => o.error?.code === "unanswered");
      const rest = results.filter((o) => o.error?.code !== "unanswered");
      mount(
        outcomes,
        ...rest.map((o) =>
          h("li", { class: o.error ? "refused" : "merged", testid: "merge-outcome" }, outcomeText(o)),
        ),
      );
      askAbout(empty);
      if (results.some((o) => o.report)) field.value = "";
      await load();
      merged();
    } catch (e) {
      fail(e);
    }
  });

  const el = h(
    "div",
    { class: "panel packs-panel", testid: "packs-panel" },
    h("div", { class: "panel-head" }, h("h3", {}, "Packs"), issue ? h("button", { testid: "open-issue", onclick: () => issue() }, "Issue a pack…") : null),
    h("p", { class: "muted small" }, "Work handed out for laptops: out, returned or expired, and the answers merged from each."),
    table,
    none,
    h("h3", {}, "Merge results…"),
    h(
      "p",
      { class: "muted small" },
      "Each file is checked first: a file altered, from another project or expired is refused and changes nothing. Merging a file again adds nothing.",
    ),
    h(
      "div",
      { class: "merge-form" },
      field,
      h("button", { testid: "merge-pasted", onclick: () => void merge(pathsFrom(field.value)) }, "Merge"),
      h(
        "button",
        { testid: "merge-choose", onclick: () => void pickPacks().then((paths) => merge(paths), fail) },
        "Choose…",
      ),
    ),
    ask,
    outcomes,
  );
  return { el, load: () => void load().catch(fail) };
}
