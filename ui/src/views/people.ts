// "Who is working?": the first screen of an open project. Answers are stored under the
// name chosen here; the project's counts sit underneath, for anyone to see.

import { h } from "../dom";
import type { Overview, Person } from "../ipc";
import { overviewGroups, overviewHead } from "./overview";
import type { Screen } from "./screen";

export interface PeopleActions {
  /** Chooses who is working; resolves to what to say when a password is wanted or wrong. */
  signIn: (name: string, password?: string | null) => Promise<string | null>;
  /** Adds the project's first person, who leads it. */
  addFirst: (name: string) => void;
}

/** The index a digit key picks (1 is the first person), or null. */
export function personForKey(key: string, count: number): number | null {
  if (!/^[1-9]$/.test(key)) return null;
  const i = Number(key) - 1;
  return i < count ? i : null;
}

/** A lead whose screens open with no password: one stray key from gold labels and
 * everyone's answers on a shared machine (issue 36). */
export function openLead(p: Person): boolean {
  return p.role === "lead" && !p.has_password;
}

/**
 * The people as listed: leads without a password after everyone else, and out of the
 * digit keys (`keyed` of them take 1–9), so that no single key opens a lead's home. They
 * are still clicked, or reached with ↑ ↓ and chosen with Enter.
 */
export function listed(people: Person[]): { order: Person[]; keyed: number } {
  const keyed = people.filter((p) => !openLead(p));
  return { order: [...keyed, ...people.filter(openLead)], keyed: Math.min(keyed.length, 9) };
}

function firstPersonForm(actions: PeopleActions): HTMLElement {
  const name = h("input", {
    class: "text-input",
    testid: "new-person-name",
    type: "text",
    placeholder: "Your name",
    "aria-label": "Your name",
    dir: "auto",
  });
  const add = (): void => {
    if (name.value.trim()) actions.addFirst(name.value.trim());
  };
  name.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") add();
  });
  return h(
    "div",
    { class: "first-person" },
    h("p", {}, "No one works on this project yet. Add yourself: the first person leads the project and adds the others."),
    h("div", { class: "inline-form" }, name, h("button", { class: "primary", testid: "add-person", onclick: add }, "Add and start")),
  );
}

/**
 * The box a person with a password types it in, under the list: the lead's screens stay
 * one password away, not one key (issue 36). Esc or "Someone else" goes back to the list.
 */
function passwordForm(name: string, said: string, actions: PeopleActions, back: () => void): HTMLElement {
  const box = h("input", { class: "text-input", testid: "who-password-box", type: "password", "aria-label": `Password for ${name}` });
  // The first line asks (muted); only a refused password is said as an error.
  const problem = h("p", { class: "muted small", testid: "who-password-problem", role: "alert" }, said);
  const go = async (): Promise<void> => {
    const wrong = await actions.signIn(name, box.value);
    if (wrong) {
      problem.textContent = wrong;
      problem.className = "error-text field-error";
      box.select();
    }
  };
  box.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") void go();
    if (ev.key === "Escape") back();
  });
  const el = h(
    "div",
    { class: "person-password", testid: "who-password-form" },
    h("label", { class: "export-label" }, `Password for ${name}`),
    h("div", { class: "inline-form" }, box, h("button", { class: "primary", testid: "who-password-go", onclick: () => void go() }, "Sign in"), h("button", { onclick: back }, "Someone else")),
    problem,
  );
  queueMicrotask(() => box.focus());
  return el;
}

export function peopleScreen(o: Overview, people: Person[], actions: PeopleActions): Screen {
  const asking = h("div", { testid: "who-password" });
  const choose = async (name: string): Promise<void> => {
    const said = await actions.signIn(name);
    if (said) asking.replaceChildren(passwordForm(name, said, actions, () => asking.replaceChildren()));
  };
  const { order, keyed } = listed(people);
  const buttons = order.map((p, i) =>
    h(
      "button",
      { class: "person", testid: `person-${p.name}`, onclick: () => void choose(p.name) },
      i < keyed ? h("kbd", {}, String(i + 1)) : h("span", { class: "kbd-space" }),
      h("span", { class: "person-name" }, p.name),
      p.role === "lead" ? h("span", { class: "badge" }, "lead") : null,
    ),
  );
  const card = h(
    "section",
    { class: "people-card", testid: "who-is-working" },
    h("h2", { class: "people-title" }, "Who is working?"),
    people.length
      ? h("p", { class: "muted" }, "Choose your name: press its number, or move with ↑ ↓ and press Enter.")
      : null,
    people.length ? h("ul", { class: "people" }, ...buttons.map((b) => h("li", {}, b))) : firstPersonForm(actions),
    asking,
    people.length ? h("p", { class: "people-note" }, "Not on the list? A lead adds people from their home screen.") : null,
  );

  function move(delta: number): void {
    const at = buttons.findIndex((b) => b === document.activeElement);
    // From no row either arrow goes to the first: up to the last would be a lead without a
    // password, listed last so that no stray key opens their home.
    const from = at < 0 ? -delta : at;
    const next = buttons[(from + delta + buttons.length) % buttons.length];
    next?.focus();
  }

  return {
    el: h("main", { class: "people-screen", testid: "people-screen" }, overviewHead(o), card, overviewGroups(o)),
    appKeys: true,
    onKey(ev: KeyboardEvent): boolean {
      const i = personForKey(ev.key, keyed);
      if (i !== null) {
        buttons[i]?.click();
        return true;
      }
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        move(ev.key === "ArrowDown" ? 1 : -1);
        return buttons.length > 0;
      }
      return false;
    },
    shown(): void {
      // No row is chosen for anyone: a stray Enter on a shared machine opened the lead's
      // home, with its gold labels and everyone's answers (issue 36). The card takes the
      // keys; the first person's form, when there is no one yet, its name.
      const input = card.querySelector("input");
      if (input) input.focus();
      else {
        card.tabIndex = -1;
        card.focus();
      }
    },
  };
}
