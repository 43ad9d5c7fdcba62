// The header's search box: claims and evidence sentences by words or a "quoted phrase",
// accents ignored. Results are labelled by what they are and their own ids; ↓ from the
// box (or ↑/↓ among them) moves through them and Enter opens one.

import { meaningOf } from "../keymap";
import { h, mount } from "../dom";
import { errorText } from "../errors";
import { plural } from "../format";
import { api, type SearchHit } from "../ipc";

export interface SearchBox {
  el: HTMLElement;
  focus: () => void;
  /** Closes the results; false when they were not open. */
  close: () => boolean;
  /** Forgets the query and closes the results. */
  reset: () => void;
}

function hitView(hit: SearchHit, i: number, open: (i: number) => void): HTMLElement {
  return h(
    "li",
    { class: "hit-row", testid: "search-hit", role: "option", "aria-selected": "false", tabindex: "-1", "data-index": String(i), onclick: () => open(i) },
    h(
      "div",
      { class: "hit-meta" },
      h("span", { class: `badge badge-${hit.kind}`, testid: "search-hit-kind" }, hit.kind === "claim" ? "Claim" : "Sentence"),
      ...(hit.kind === "claim"
        ? [h("span", { class: "claim-number", testid: "search-hit-number" }, hit.reference), h("span", { class: "hit-id", testid: "search-hit-id" }, hit.ext_id)]
        : [h("span", { class: "hit-id", testid: "search-hit-id" }, hit.ext_id ? `in document ${hit.ext_id}` : "")]),
    ),
    h("p", { class: "hit-text", testid: "search-hit-text", dir: "auto" }, hit.text),
  );
}

export function searchBox(openHit: (hit: SearchHit) => void = () => {}): SearchBox {
  const input = h("input", {
    class: "search-input",
    testid: "search-input",
    type: "search",
    placeholder: "Search claims and sentences   /",
    "aria-label": "Search claims and sentences",
    dir: "auto",
  });
  const results = h("div", { class: "search-results", testid: "search-results", role: "region", "aria-label": "Search results" });
  const el = h("div", { class: "search" }, input, results);
  let asked = 0;
  let hits: SearchHit[] = [];

  function rows(): HTMLElement[] {
    return [...results.querySelectorAll<HTMLElement>(".hit-row")];
  }

  /** Moves the highlight to hit `i` (clamped), focusing it. */
  function select(i: number): void {
    const all = rows();
    if (all.length === 0) return;
    const at = Math.max(0, Math.min(i, all.length - 1));
    all.forEach((r, j) => r.setAttribute("aria-selected", String(j === at)));
    all[at]?.focus();
    all[at]?.scrollIntoView({ block: "nearest" });
  }

  function selected(): number {
    return rows().findIndex((r) => r.getAttribute("aria-selected") === "true");
  }

  function open(i: number): void {
    const hit = hits[i];
    if (!hit) return;
    close();
    input.blur();
    openHit(hit);
  }

  function close(): boolean {
    const open = results.classList.contains("open");
    results.classList.remove("open");
    mount(results);
    return open;
  }

  async function run(): Promise<void> {
    const query = input.value.trim();
    if (!query) return void close();
    const mine = ++asked;
    results.classList.add("open");
    mount(results, h("p", { class: "muted" }, "Searching…"));
    try {
      const found = await api.search(query);
      if (mine !== asked) return;
      hits = found;
      mount(
        results,
        h(
          "p",
          { class: "hit-count", testid: "search-count" },
          hits.length ? `${plural(hits.length, "result")} · ↓ to go through them, Enter opens` : "Nothing found.",
        ),
        hits.length ? h("ul", { class: "hits", role: "listbox", "aria-label": "Results" }, ...hits.map((hit, i) => hitView(hit, i, open))) : null,
      );
    } catch (e) {
      if (mine === asked) mount(results, h("p", { class: "error-text" }, errorText(e)));
    }
  }

  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      ev.preventDefault();
      void run();
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      close();
      input.blur();
    } else if (ev.key === "ArrowDown" && rows().length > 0) {
      ev.preventDefault();
      select(0);
    }
  });
  // Among the results: the keys stay here, not with the screen underneath.
  results.addEventListener("keydown", (ev) => {
    const at = selected();
    const meaning = meaningOf(ev.key);
    if (meaning === "next") select(at + 1);
    else if (meaning === "back") {
      if (at <= 0) input.focus();
      else select(at - 1);
    } else if (meaning === "submit") open(at);
    else if (meaning === "escape") {
      close();
      input.focus();
    } else if (meaning === "search") {
      input.focus();
      input.select();
    } else return;
    ev.preventDefault();
    ev.stopPropagation();
  });
  // A click elsewhere puts the results away, as a menu would.
  document.addEventListener("mousedown", (ev) => {
    if (!el.contains(ev.target as Node)) close();
  });

  return {
    el,
    // "/" again selects the old query, so typing replaces it rather than adding to it.
    focus: () => {
      input.focus();
      input.select();
    },
    close,
    reset: () => {
      asked += 1;
      input.value = "";
      close();
    },
  };
}
