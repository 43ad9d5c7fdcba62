// The disagreement category a lead names when settling an item: a select of the project's
// categories (hidden when it lists none), picked with the mouse, or by keys as G then the
// category's number (0 for none), as D then a number shows a sentence in its document.

import { h, mount, textDirection } from "../dom";

export interface CategoryPicker {
  /** The select, with the numbers G offers floating above it while they are asked for. */
  el: HTMLElement;
  select: HTMLSelectElement;
  /** Lists the project's categories, keeping the one chosen when it is still listed. */
  list(categories: string[]): void;
  /** The category chosen, or null. */
  chosen(): string | null;
  /** Chooses the `n`th category (1 the first), or none for 0; false when there is no such. */
  pick(n: number): boolean;
  clear(): void;
  /** Shows (or hides) what G then a number picks, above the select: the row is where
   * the lead is looking, and a notice at the top of the screen can be scrolled away. */
  prompt(on: boolean): void;
  /** Whether the project lists any category. */
  offered(): boolean;
}

export function categoryPicker(): CategoryPicker {
  const select = h("select", {
    class: "text-input adj-category",
    testid: "adj-category",
    "aria-label": "Category of the disagreement",
  });
  const el = select;
  const bubble = h("ol", { class: "adj-category-hint", testid: "adj-category-hint", role: "status" });
  bubble.hidden = true;
  const wrap = h("span", { class: "adj-category-wrap" }, select, bubble);
  let categories: string[] = [];
  /**
   * The closed select reads as its state: "No category — G" quiet like a placeholder, a
   * category chosen in the accent's colours; one in Arabic or Hebrew reads from the right.
   */
  function show(): void {
    el.classList.toggle("chosen", el.value !== "");
    el.dir = textDirection(el.value);
    el.title = el.value ? `Category: ${el.value} (G then its number)` : "No category: G then a number picks one";
  }
  // "input" too: the arrow keys change a closed select's value as they go.
  el.addEventListener("change", show);
  el.addEventListener("input", show);
  el.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === "Escape") {
      ev.preventDefault();
      el.blur();
    }
  });
  return {
    el: wrap,
    select,
    list(list: string[]): void {
      const was = el.value;
      categories = list;
      const option = (value: string, text: string): HTMLOptionElement => {
        const o = h("option", { dir: "auto" }, text);
        o.value = value;
        return o;
      };
      mount(el, option("", "No category — G"), ...list.map((c, i) => option(c, `${i + 1} ${c}`)));
      el.value = list.includes(was) ? was : "";
      wrap.hidden = list.length === 0;
      mount(bubble, ...list.map((c, i) => h("li", { dir: "auto" }, h("kbd", {}, String(i + 1)), " ", c)), h("li", {}, h("kbd", {}, "0"), " none"));
      show();
    },
    chosen: () => el.value || null,
    pick(n: number): boolean {
      if (n < 0 || n > categories.length) return false;
      el.value = n === 0 ? "" : (categories[n - 1] ?? "");
      show();
      return true;
    },
    clear(): void {
      el.value = "";
      show();
    },
    prompt(on: boolean): void {
      bubble.hidden = !on;
    },
    offered: () => categories.length > 0,
  };
}
