// The header's search box: claims and evidence sentences by words or a "quoted phrase".
// Results are shown as text, labelled by what they are.

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

function hitView(hit: SearchHit): HTMLElement {
  return h(
    "li",
    { class: "hit-row", testid: "search-hit" },
    h(
      "div",
      { class: "hit-meta" },
      h("span", { class: `badge badge-${hit.kind}`, testid: "search-hit-kind" }, hit.kind === "claim" ? "Claim" : "Sentence"),
      h("span", { class: "hit-id" }, hit.kind === "claim" ? hit.ext_id : `in ${hit.ext_id}`),
    ),
    h("p", { class: "hit-text", testid: "search-hit-text", dir: "auto" }, hit.text),
  );
}

export function searchBox(): SearchBox {
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
      const hits = await api.search(query);
      if (mine !== asked) return;
      mount(
        results,
        h("p", { class: "hit-count", testid: "search-count" }, hits.length ? plural(hits.length, "result") : "Nothing found."),
        hits.length ? h("ul", { class: "hits" }, ...hits.map(hitView)) : null,
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
    }
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
