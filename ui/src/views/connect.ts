// "Connect to a team server": the server's address, a name and a password. The app then
// works on the server's project as the person signed in; the password is never kept.

import { h } from "../dom";
import { readable } from "../errors";
import type { Screen } from "./screen";

export interface ConnectPrefill {
  url?: string;
  name?: string;
  /** Why the form shows again (a session that ended), said above it. */
  reason?: string;
  /** In a browser: the server is the one that served the page, so its address is not
   * asked, and there is nowhere to go back to. */
  here?: boolean;
}

export interface ConnectActions {
  /** Signs in; rejects with the reason when it fails. */
  connect: (url: string, name: string, password: string) => Promise<void>;
  back: () => void;
}

function field(id: string, label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  input.id = id;
  const tag = h("label", { class: "connect-label" }, label);
  tag.htmlFor = id;
  let note: HTMLElement | null = null;
  if (hint) {
    note = h("p", { class: "connect-hint" }, hint);
    note.id = `${id}-hint`;
    input.setAttribute("aria-describedby", note.id);
  }
  return h("div", { class: "connect-field" }, tag, input, note);
}

/** A text field with its starting value and what the browser may fill in. */
function input(testid: string, type: string, value: string, autocomplete: string): HTMLInputElement {
  const el = h("input", { class: "text-input", testid, type, dir: "auto" });
  el.value = value;
  el.autocomplete = autocomplete as AutoFill;
  el.spellcheck = false;
  return el;
}

/** What is missing from the form, or null when it can be sent. */
export function missing(url: string, name: string, password: string): string | null {
  if (!url.trim()) return "Give the server's address.";
  if (!name.trim()) return "Give your name.";
  if (!password) return "Give your password.";
  return null;
}

export function connectScreen(prefill: ConnectPrefill, actions: ConnectActions): Screen {
  const url = input("server-url", "url", prefill.url ?? "", "url");
  url.placeholder = "https://factdesk.example.org";
  const name = input("server-name", "text", prefill.name ?? "", "username");
  const password = input("server-password", "password", "", "current-password");
  const problem = h("p", { class: "error-text connect-problem", testid: "connect-error", role: "alert" });
  const send = h("button", { class: "primary", testid: "connect", type: "submit" }, prefill.here ? "Sign in" : "Connect");
  const back = prefill.here ? null : h("button", { testid: "connect-back", type: "button", onclick: () => actions.back() }, "Back");
  let busy = false;

  const submit = async (): Promise<void> => {
    if (busy) return;
    const lacking = missing(url.value, name.value, password.value);
    if (lacking) {
      problem.textContent = lacking;
      (!url.value.trim() ? url : !name.value.trim() ? name : password).focus();
      return;
    }
    busy = true;
    send.disabled = true;
    send.textContent = prefill.here ? "Signing in…" : "Connecting…";
    problem.textContent = "";
    try {
      await actions.connect(url.value.trim(), name.value.trim(), password.value);
    } catch (e) {
      problem.textContent = readable(e);
      password.value = "";
      password.focus();
    } finally {
      busy = false;
      send.disabled = false;
      send.textContent = prefill.here ? "Sign in" : "Connect";
    }
  };

  const form = h(
    "form",
    { class: "connect-form", testid: "connect-form" },
    prefill.here
      ? null
      : field("server-url", "Server address", url, "As your lead gave it, e.g. https://factdesk.example.org or http://127.0.0.1:4470."),
    field("server-name", "Name", name),
    field("server-password", "Password", password),
    problem,
    h("div", { class: "actions" }, send, back),
  );
  form.noValidate = true;
  // The app's keys stay out of text fields; Esc leaves the form from any of them too.
  form.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !busy && !prefill.here) {
      ev.preventDefault();
      actions.back();
    }
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void submit();
  });

  return {
    el: h(
      "main",
      { class: "start", testid: "connect-screen" },
      h(
        "section",
        { class: "start-card" },
        h("h1", {}, prefill.here ? "Sign in to Factdesk" : "Connect to a team server"),
        h(
          "p",
          { class: "lede" },
          prefill.here
            ? "Your lead gave you a name and a password for this project. Answers count at once, and the lead sees agreement move live."
            : "Work on your team's shared project: answers count at once, and the lead sees agreement move live.",
        ),
        prefill.reason ? h("p", { class: "connect-reason", role: "status", testid: "connect-reason" }, prefill.reason) : null,
        form,
      ),
    ),
    onKey(ev: KeyboardEvent): boolean {
      if (ev.key !== "Escape" || prefill.here) return false;
      actions.back();
      return true;
    },
    shown(): void {
      (prefill.url ? (prefill.name ? password : name) : url).focus();
    },
  };
}
