// The start screen: open or create a project, connect to a team server, or pick a recent
// one.

import { capOf } from "../keymap";
import { h } from "../dom";
import { fileName } from "../format";
import type { RecentProject } from "../ipc";

export interface StartActions {
  open: () => void;
  create: () => void;
  openPath: (path: string) => void;
  /** Shows "Connect to a team server", filled in from a recent server when given. */
  connect: (recent?: RecentProject) => void;
}

/** Whether a recent entry is a team server (its path is then the address). */
export function isServer(r: RecentProject): boolean {
  return r.path.startsWith("https://") || r.path.startsWith("http://");
}

function recentItem(r: RecentProject, actions: StartActions): HTMLElement {
  return h(
    "li",
    {},
    h(
      "button",
      {
        class: "recent-item",
        disabled: !r.exists,
        title: r.exists ? r.path : `${r.path} is missing`,
        onclick: () => (isServer(r) ? actions.connect(r) : actions.openPath(r.path)),
      },
      h(
        "span",
        { class: "recent-name" },
        r.name || fileName(r.path),
        // A pack keeps its project's name: say which one is the pack.
        r.path.endsWith(".fdpack") ? h("span", { class: "badge badge-pack", testid: "recent-pack" }, "pack") : null,
        isServer(r) ? h("span", { class: "badge badge-server", testid: "recent-server" }, "team server") : null,
      ),
      h(
        "span",
        { class: "recent-path" },
        isServer(r) && r.person ? `${r.person} at ${r.path}` : r.path,
        r.exists ? null : h("span", { class: "recent-missing" }, " — missing"),
      ),
    ),
  );
}

export function startView(recent: RecentProject[], actions: StartActions): HTMLElement {
  const list = recent.length
    ? h("ul", { class: "recent", testid: "recent-projects" }, ...recent.map((r) => recentItem(r, actions)))
    : h("p", { class: "muted" }, "No recent projects yet.");

  return h(
    "main",
    { class: "start", testid: "start-screen" },
    h(
      "section",
      { class: "start-card" },
      h("h1", {}, "Factdesk"),
      h("p", { class: "lede" }, "Build fact-checking datasets: claims, evidence, annotators, agreement."),
      h(
        "div",
        { class: "actions" },
        h("button", { class: "primary", testid: "open-project", onclick: actions.open }, "Open project…", h("kbd", {}, capOf("open"))),
        h("button", { testid: "new-project", onclick: actions.create }, "New project…", h("kbd", {}, capOf("new"))),
        h(
          "button",
          { testid: "connect-server", onclick: () => actions.connect() },
          "Connect to a team server…",
          h("kbd", {}, capOf("team")),
        ),
      ),
      h("h2", {}, "Recent projects"),
      list,
    ),
  );
}
