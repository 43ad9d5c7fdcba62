// A file path in a text field, shown so that both its start and its file name are in
// sight: a narrow field cut a long path at one end ("tmp/factdesk-…" without its "/", or
// the folders without the file's name).

import { h } from "./dom";

/** A path's folder and, with the separator before it, its file name: "/a/b.txt" → ["/a", "/b.txt"]. */
export function splitPath(path: string): [string, string] {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut < 0 ? ["", path] : [path.slice(0, cut), path.slice(cut)];
}

export interface PathField {
  el: HTMLElement;
  /** Shows the input's value again, after code (not typing) set it. */
  refresh: () => void;
}

/**
 * Wraps a path input: while it is not being edited it shows the path's start and its file
 * name whole, eliding the middle of the folders ("/tmp/factdesk-…/demo.gold.jsonl"), with
 * the whole path in the tooltip; while it has the focus it shows the text as typed.
 */
export function pathField(input: HTMLInputElement): PathField {
  const folder = h("span", { class: "path-folder" });
  const name = h("span", { class: "path-name" });
  const shown = h("span", { class: "path-shown", "aria-hidden": "true", testid: `${input.dataset["testid"] ?? "path"}-shown` }, folder, name);
  const el = h("div", { class: "path-field" }, input, shown);
  const refresh = (): void => {
    const [start, end] = splitPath(input.value);
    folder.textContent = start;
    name.textContent = end;
    input.title = input.value;
    el.classList.toggle("empty", input.value === "");
  };
  input.addEventListener("input", refresh);
  input.addEventListener("change", refresh);
  refresh();
  return { el, refresh };
}
