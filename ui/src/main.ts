// The app's entry: which screen shows (start, who is working, home, work), the header
// and error banner around it, and the keyboard routing between them.

import { meaningOf } from "./keymap";
import { h, mount } from "./dom";
import { readable, sentence } from "./errors";
import {
  ApiError,
  api,
  inBrowser,
  onWaitingToSave,
  pickNewProject,
  pickProject,
  signOut,
  type Manifest,
  type Overview,
  type Person,
  type RecentProject,
  type SearchHit,
  type TaskKind,
} from "./ipc";
import { adjudicateScreen } from "./views/adjudicate";
import { dashboardScreen } from "./views/dashboard";
import { exportScreen } from "./views/export";
import { homeScreen, type LeadScreen } from "./views/home";
import { packBadge } from "./views/packs";
import { peopleScreen } from "./views/people";
import type { Screen } from "./views/screen";
import { searchBox } from "./views/search";
import { claimScreen, claimsScreen, newClaimsState, sentenceScreen } from "./views/claims";
import { connectScreen, type ConnectPrefill } from "./views/connect";
import { isServer, startView } from "./views/start";
import type { Drafts } from "./views/work/draft";
import { workScreen } from "./views/work/screen";
import { leadScreen } from "./views/leadwork";

const root = document.getElementById("app") ?? document.body;
const headerSlot = h("div");
const bannerSlot = h("div");
const screenSlot = h("div", { class: "screen" });
mount(root, headerSlot, bannerSlot, screenSlot);

let project: Overview | null = null;
let person: Person | null = null;
/** Set when the open file is a pack: annotator work only, and "Return results". */
let pack: Manifest | null = null;
/** Set when the work is on a team server: the person is whoever signed in there. */
let server: { url: string; name: string } | null = null;
let screen: Screen = { el: h("main") };
/** The signed-in person's unsent work (Esc keeps a draft); forgotten when they change. */
let drafts: Drafts = new Map();
const search = searchBox((hit) => openHit(hit));
/** Shows the current screen again (a claim opened from it goes back here). */
let again: () => void = () => {};
/** The lead's list of claims, as it was left. */
let claimsState = newClaimsState();

function header(): HTMLElement {
  return h(
    "header",
    { class: "bar" },
    h("span", { class: "brand" }, "Factdesk"),
    // A pack's badge names it and its due date: its name beside it was cut ("Pack for a…").
    project ? h("span", { class: "bar-sep", "aria-hidden": "true" }, "/") : null,
    project && !pack ? h("span", { class: "bar-project", testid: "bar-project" }, project.name) : null,
    project && pack ? packBadge(pack) : null,
    project && server
      ? h("span", { class: "badge badge-server", testid: "server-badge", title: server.url }, "team server")
      : null,
    h("span", { class: "spacer" }),
    project ? search.el : null,
    person
      ? h(
          "span",
          { class: "bar-person", testid: "current-person" },
          h("span", { class: "bar-person-name" }, person.name),
          person.role === "lead" ? h("span", { class: "badge" }, "lead") : null,
        )
      : null,
    person && !server
      ? h("button", { class: "bar-button", testid: "switch-person", onclick: () => void showPeople() }, "Switch person")
      : null,
    project && !inBrowser
      ? h("button", { class: "bar-button", testid: "back-to-start", onclick: () => void showStart() }, "All projects")
      : null,
    person && inBrowser
      ? h("button", { class: "bar-button", testid: "sign-out", onclick: () => void leave() }, "Sign out")
      : null,
  );
}

function renderHeader(): void {
  document.title = project ? `${project.name} — Factdesk` : "Factdesk";
  mount(headerSlot, header());
}

function showBanner(text: string | null): void {
  mount(
    bannerSlot,
    text
      ? h(
          "div",
          { class: "banner", role: "alert", testid: "error" },
          h("span", { class: "banner-text" }, text),
          h("button", { class: "ghost", onclick: () => showBanner(null) }, "Dismiss"),
        )
      : null,
  );
}

function fail(e: unknown): void {
  // A server session that ended (expired, or the person was disabled): sign in again.
  if (server && e instanceof ApiError && e.code === "unauthorized") {
    return showConnect({ url: server.url, name: server.name, reason: readable(e), here: inBrowser });
  }
  showBanner(readable(e));
}

/** In a browser: signs out on the server and shows the sign-in form. */
async function leave(): Promise<void> {
  const name = person?.name;
  try {
    await signOut();
  } catch (e) {
    // Signed out already (the session had ended): the form is where this goes anyway.
    if (!(e instanceof ApiError && e.code === "unauthorized")) return fail(e);
  }
  showConnect({ url: location.origin, name, here: true });
}

// An answer waiting for the server to come back says so; the banner goes once it is saved.
let waitingShown = false;
onWaitingToSave((saving) => {
  if (saving) {
    waitingShown = true;
    showBanner("Not saved yet: the server is out of reach. Your answer is sent again until it is saved.");
  } else if (waitingShown) {
    waitingShown = false;
    showBanner(null);
  }
});

function setScreen(next: Screen): void {
  screen.leave?.();
  screen = next;
  // A search belongs to the screen and person it was typed on.
  search.reset();
  // An error from the screen being left is about it, not about the next one.
  showBanner(null);
  renderHeader();
  mount(screenSlot, next.el);
  next.shown?.();
}

async function showStart(): Promise<void> {
  project = null;
  person = null;
  pack = null;
  server = null;
  setScreen({ el: startView([], startActions), appKeys: true });
  try {
    setScreen({ el: startView(await api.recentProjects(), startActions), appKeys: true });
  } catch (e) {
    fail(e);
  }
}

/** "Who is working?", over the project's counts. */
async function showPeople(): Promise<void> {
  try {
    const [o, people] = await Promise.all([api.overview(), api.people()]);
    project = o;
    person = null;
    setScreen(peopleScreen(o, people, { signIn, addFirst: (name) => void addFirst(name) }));
  } catch (e) {
    fail(e);
  }
}

/** Chooses who is working; for someone with a password (wanted, or wrong), what to say
 * beside the password box instead of failing. */
async function signIn(name: string, password: string | null = null): Promise<string | null> {
  try {
    person = await api.signIn(name, password);
    drafts = new Map();
    claimsState = newClaimsState();
    showBanner(null);
    showHome();
  } catch (e) {
    if (e instanceof ApiError && e.code === "unauthorized") return sentence(e.message);
    fail(e);
  }
  return null;
}

async function addFirst(name: string): Promise<void> {
  try {
    await api.addPerson(name, "lead");
    await signIn(name);
  } catch (e) {
    fail(e);
  }
}

function showHome(): void {
  if (!project || !person) return void showPeople();
  again = showHome;
  setScreen(
    homeScreen(project, person, {
      work: showWork,
      fail,
      changed: (o) => {
        project = o;
      },
      dashboard: showDashboard,
      pack: pack ?? undefined,
      adjudicate: showAdjudicate,
      exportGold: showExport,
      lead: showLead,
      claims: showClaims,
    }),
  );
}

function showLead(which: LeadScreen): void {
  if (project) setScreen(leadScreen(which, project, { home: showHome, fail }));
}

function showDashboard(): void {
  again = showDashboard;
  setScreen(dashboardScreen({ home: showHome, fail }));
}

function showAdjudicate(): void {
  again = showAdjudicate;
  setScreen(adjudicateScreen({ home: showHome, export: showExport, fail }));
}

function showExport(): void {
  again = showExport;
  if (project) setScreen(exportScreen(project, { home: showHome, adjudicate: showAdjudicate, fail }));
}

function showWork(kind: TaskKind): void {
  again = () => showWork(kind);
  setScreen(workScreen(kind, { home: showHome, fail, drafts, pack: pack !== null }));
}

function showClaims(): void {
  again = showClaims;
  setScreen(claimsScreen(claimsState, { home: showHome, open: showClaim, fail }));
}

/** A claim by its reference, from the list or a search hit; Esc goes back to where it was opened. */
function showClaim(reference: string): void {
  const back = again;
  setScreen(claimScreen(reference, { back, fail }));
}

function openHit(hit: SearchHit): void {
  if (hit.kind === "claim") return showClaim(hit.reference);
  const back = again;
  setScreen(sentenceScreen(hit, { back, fail }));
}

function showConnect(prefill: ConnectPrefill = {}): void {
  project = null;
  person = null;
  pack = null;
  server = null;
  setScreen(connectScreen(prefill, { connect, back: () => void showStart() }));
}

/** Signs in to a server and goes straight home: the person is the one signed in. */
async function connect(url: string, name: string, password: string): Promise<void> {
  const o = await api.connectServer(url, name, password);
  const who = await api.currentPerson();
  if (!who) return;
  project = o;
  pack = null;
  server = { url: inBrowser ? location.origin : o.path, name: who.name };
  person = who;
  drafts = new Map();
  claimsState = newClaimsState();
  showHome();
}

async function opened(load: () => Promise<Overview | null>): Promise<void> {
  try {
    const o = await load();
    if (!o) return;
    showBanner(null);
    project = o;
    server = null;
    pack = await api.packInfo();
    await showPeople();
  } catch (e) {
    fail(e);
  }
}

const startActions = {
  open: () => void opened(async () => {
    const path = await pickProject();
    return path ? api.openProject(path) : null;
  }),
  create: () => void opened(async () => {
    const path = await pickNewProject();
    return path ? api.createProject(path) : null;
  }),
  openPath: (path: string) => void opened(() => api.openProject(path)),
  connect: (recent?: RecentProject) =>
    showConnect(recent && isServer(recent) ? { url: recent.path, name: recent.person ?? undefined } : {}),
};

/** Keys that may repeat when held down: moving, not choosing. */
const REPEATING = new Set(["ArrowDown", "ArrowUp", "ArrowLeft", "ArrowRight", "j", "k"]);

document.addEventListener("keydown", (ev) => {
  const t = ev.target;
  if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
  // A focused button takes Enter and Space itself, as buttons do.
  if (t instanceof HTMLButtonElement && (meaningOf(ev.key) === "submit" || meaningOf(ev.key) === "select")) return;
  if (ev.repeat && !REPEATING.has(ev.key)) return;
  if (ev.key === "Escape" && search.close()) return;
  if (meaningOf(ev.key) === "search" && project) {
    ev.preventDefault();
    search.focus();
    return;
  }
  if (screen.onKey?.(ev)) {
    ev.preventDefault();
    return;
  }
  const meaning = meaningOf(ev.key);
  // A browser works on its server's project only: no files to open or create.
  if (inBrowser) {
    if (ev.key === "Escape") showBanner(null);
    return;
  }
  if (screen.appKeys && meaning === "open") startActions.open();
  else if (screen.appKeys && meaning === "new" && !project) startActions.create();
  else if (screen.appKeys && meaning === "team" && !project) {
    // The connect screen focuses its first field: the T must not be typed into it.
    ev.preventDefault();
    startActions.connect();
  }
  else if (ev.key === "Escape") showBanner(null);
});

/** In a browser: home when the page's session still holds (a reload), else sign-in. */
async function startInBrowser(): Promise<void> {
  try {
    const who = await api.currentPerson();
    if (!who) return showConnect({ url: location.origin, here: true });
    project = await api.overview();
    server = { url: location.origin, name: who.name };
    person = who;
    showHome();
  } catch (e) {
    showConnect({ url: location.origin, here: true });
    fail(e);
  }
}

async function start(): Promise<void> {
  if (inBrowser) return startInBrowser();
  try {
    const o = await api.startupProject();
    if (o) return void opened(async () => o);
  } catch (e) {
    // A project named at start that fails to open: say why, over the start screen.
    await showStart();
    return fail(e);
  }
  await showStart();
}

void start();
