// The app's entry: decides which screen shows, shows errors, and wires the keyboard.

import { h, mount } from "./dom";
import { errorText } from "./errors";
import { api, pickNewProject, pickProject, type Overview } from "./ipc";
import { overviewView } from "./views/overview";
import { startView } from "./views/start";

const root = document.getElementById("app") ?? document.body;
let current: Overview | null = null;
let banner: string | null = null;
let body: HTMLElement = h("main");

function header(): HTMLElement {
  return h(
    "header",
    { class: "bar" },
    h("span", { class: "brand" }, "Factdesk"),
    current ? h("span", { class: "bar-sep", "aria-hidden": "true" }, "/") : null,
    current ? h("span", { class: "bar-project", testid: "bar-project" }, current.name) : null,
    h("span", { class: "spacer" }),
    current
      ? h("button", { class: "bar-button", testid: "back-to-start", onclick: () => void showStart() }, "All projects")
      : null,
  );
}

function errorBanner(): HTMLElement | null {
  if (!banner) return null;
  return h(
    "div",
    { class: "banner", role: "alert", testid: "error" },
    h("span", { class: "banner-text" }, banner),
    h("button", { class: "ghost", onclick: () => dismiss() }, "Dismiss"),
  );
}

function render(): void {
  document.title = current ? `${current.name} — Factdesk` : "Factdesk";
  mount(root, header(), errorBanner(), body);
}

function dismiss(): void {
  banner = null;
  render();
}

function fail(e: unknown): void {
  banner = errorText(e);
  render();
}

async function showStart(): Promise<void> {
  current = null;
  body = startView([], startActions);
  render();
  try {
    body = startView(await api.recentProjects(), startActions);
    render();
  } catch (e) {
    fail(e);
  }
}

function showOverview(o: Overview): void {
  current = o;
  banner = null;
  body = overviewView(o);
  render();
}

async function attempt(load: () => Promise<Overview | null>): Promise<void> {
  try {
    const o = await load();
    if (o) showOverview(o);
  } catch (e) {
    fail(e);
  }
}

async function openPicked(): Promise<void> {
  await attempt(async () => {
    const path = await pickProject();
    return path ? api.openProject(path) : null;
  });
}

async function createPicked(): Promise<void> {
  await attempt(async () => {
    const path = await pickNewProject();
    return path ? api.createProject(path) : null;
  });
}

const startActions = {
  open: () => void openPicked(),
  create: () => void createPicked(),
  openPath: (path: string) => void attempt(() => api.openProject(path)),
};

document.addEventListener("keydown", (ev) => {
  const t = ev.target;
  if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
  if (ev.key === "o") void openPicked();
  else if (ev.key === "n" && !current) void createPicked();
  else if (ev.key === "Escape" && banner) dismiss();
});

async function start(): Promise<void> {
  try {
    const opened = await api.startupProject();
    if (opened) return showOverview(opened);
  } catch (e) {
    // A project named at start that fails to open: say why, over the start screen.
    banner = errorText(e);
  }
  await showStart();
}

void start();
