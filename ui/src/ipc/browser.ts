// The browser client's transport: the same typed operations as the desktop app, sent to
// the team server that served this page (`POST /api/v1/call`). The session is an
// HttpOnly cookie the page never sees; every request carries X-Factdesk-Browser, without
// which the server refuses the cookie (a page of another site cannot add that header).
// Files to import and returned packs to merge are chosen in the page and sent as bytes
// (uploads.ts). What only the desktop app can do (project files, answering a pack
// offline) is refused here with a sentence saying so.

import type { Dashboard, Download, DownloadFile, Overview, Person } from "./bindings";
import { downloads } from "./downloads";
import { ApiError, isBackendError } from "./error";
import { operations } from "./operations";
import type { Send } from "./send";
import type { shellCommands } from "./shell";
import { cancelChosen, importChosen, mergeChosen } from "./uploads";

const OURS = { "x-factdesk-browser": "1" };

/** How long the event stream may stay silent (the server beats every 4 s) before it is
 * counted dead and followed again. */
const SILENCE_MS = 10_000;

const unreachable = (): ApiError =>
  new ApiError({
    code: "unavailable",
    message: "The team server cannot be reached: check the connection; nothing is lost, your answer waits on this screen.",
    location: null,
  });

/** The failure a response carries, as the server sends it ({code, message}). */
async function failureOf(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => null);
  if (isBackendError(body)) return new ApiError({ code: body.code, message: body.message, location: body.location ?? null });
  if (response.status >= 500) return unreachable();
  return new ApiError({ code: "io", message: `The server answered ${response.status}.`, location: null });
}

/** `POST route` with `body` as JSON: the answer's JSON (typed by the caller's
 * declaration), or its failure. */
async function post<T>(route: string, body: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(route, {
      method: "POST",
      credentials: "same-origin",
      headers: { ...OURS, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch {
    throw unreachable();
  }
  if (!response.ok) throw await failureOf(response);
  // A sign-out answers 204, with no body.
  return JSON.parse((await response.text()) || "null");
}

/** `GET route`: the answer's JSON, or its failure. */
async function get<T>(route: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(route, { credentials: "same-origin", headers: OURS });
  } catch {
    throw unreachable();
  }
  if (!response.ok) throw await failureOf(response);
  return response.json();
}

/** `taskId` as the api names it: `task_id`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** An operation, as `{op, args}` to the server's one route for the app's operations. */
export const httpSend: Send = async <T>(command: string, args?: Record<string, unknown>): Promise<T> => {
  const named = args && Object.keys(args).length ? Object.fromEntries(Object.entries(args).map(([k, v]) => [snakeCase(k), v])) : undefined;
  // The response is the operation's, typed by its generated declaration (operations.ts).
  return post<T>("/api/v1/call", named ? { op: command, args: named } : { op: command });
};

/** Signs out: the server ends the session and clears the cookie. */
export async function signOut(): Promise<void> {
  await post<unknown>("/api/v1/logout", {});
}

/** The name a file of a download is saved under: the export's own as `name`, each file
 * beside it as `<stem>.<beside>` (as the desktop app names them). */
export function savedName(file: DownloadFile, name: string): string {
  return file.beside === null ? name : `${name.replace(/\.[^.]*$/, "")}.${file.beside}`;
}

/** Saves a download's files in the browser's downloads; the names given, in order. */
export function save(download: Download, name: string): string[] {
  return download.files.map((file: DownloadFile) => {
    const as = savedName(file, name);
    const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
    const url = URL.createObjectURL(new Blob([bytes]));
    const link = document.createElement("a");
    link.href = url;
    link.download = as;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return as;
  });
}

export const onlyInTheApp = (what: string): Promise<never> =>
  Promise.reject(
    new ApiError({
      code: "forbidden",
      message: `${what} is done in the Factdesk desktop app (or with the factdesk command); a browser works on the team server's project only.`,
      location: null,
    }),
  );

/** The desktop shell's commands, as a browser does them against its server. */
export function browserShell(send: Send): ReturnType<typeof shellCommands> {
  const ops = operations(send);
  const files = downloads(send);
  return {
    startupProject: async () => null,
    openProject: () => onlyInTheApp("Opening a project file"),
    createProject: () => onlyInTheApp("Creating a project file"),
    recentProjects: async () => [],
    connectServer: async (_url: string, name: string, password: string): Promise<Overview> => {
      await post<unknown>("/api/v1/login", { name, password });
      return ops.overview();
    },
    currentPerson: async (): Promise<Person | null> => {
      try {
        return await ops.me();
      } catch (e) {
        if (e instanceof ApiError && e.code === "unauthorized") return null;
        throw e;
      }
    },
    people: async () => [],
    signIn: () => onlyInTheApp("Choosing who is working on a project file"),
    startImport: (claims, documents, preset) => importChosen(post, get, claims, documents, preset),
    cancelImport: cancelChosen,
    // The settings screen offers no re-ranking on a server (`factdesk rank` runs there).
    startRank: () => onlyInTheApp("Ranking candidates again"),
    cancelRank: async () => null,
    rankingNow: async () => null,
    watchDashboard: async () => {
      dashboards.start(ops.dashboard);
      return null;
    },
    stopDashboard: async () => {
      dashboards.stop();
      return null;
    },
    mergePacks: (names, giveBack) => mergeChosen(post, names, giveBack),
    packInfo: async () => null,
    returnResults: () => onlyInTheApp("Returning a pack"),
    exportGold: async (request, out, format) => {
      const download = await files.exportGold(request, format);
      if (!("card" in download.report)) throw new ApiError({ code: "io", message: "the server sent another export's report", location: null });
      save(download, out);
      const beside = download.files.filter((f) => f.beside !== null);
      const card = beside.find((f) => f.beside === "card.md");
      return {
        ...download.report,
        out,
        card: card ? savedName(card, out) : "",
        split_files: beside.filter((f) => f !== card).map((f) => savedName(f, out)),
      };
    },
    exportAnswers: async (out, format) => {
      const download = await files.exportAnswers(format);
      if (!("rows" in download.report)) throw new ApiError({ code: "io", message: "the server sent another export's report", location: null });
      save(download, out);
      return { ...download.report, out };
    },
    issuePack: async (request, out) => {
      const download = await files.issuePack(request);
      if (!("pack_id" in download.report)) throw new ApiError({ code: "io", message: "the server sent another export's report", location: null });
      save(download, out);
      return { ...download.report, path: out };
    },
  };
}

type Listeners = {
  snapshot: (d: Dashboard) => void;
  failed: (e: ApiError) => void;
  link: (down: ApiError | null) => void;
};

/** The live dashboard in a browser: the server's event stream (a tick per committed
 * answer) followed with fetch, and the dashboard asked for after each tick, one request
 * at a time, ticks meanwhile folded into the next. */
class DashboardFollower {
  private listeners: Listeners | null = null;
  private controller: AbortController | null = null;
  private running = 0;

  listen(listeners: Listeners): () => void {
    this.listeners = listeners;
    return () => {
      if (this.listeners === listeners) this.listeners = null;
    };
  }

  start(dashboard: (intervals: boolean) => Promise<Dashboard>): void {
    this.stop();
    const run = (this.running += 1);
    void this.follow(run, dashboard);
  }

  stop(): void {
    this.running += 1;
    this.controller?.abort();
    this.controller = null;
  }

  private async follow(run: number, dashboard: (intervals: boolean) => Promise<Dashboard>): Promise<void> {
    let busy = false;
    let again = false;
    const refresh = async (): Promise<void> => {
      if (busy) return void (again = true);
      busy = true;
      try {
        do {
          again = false;
          const d = await dashboard(true);
          if (run === this.running) this.listeners?.snapshot(d);
        } while (again && run === this.running);
      } catch (e) {
        if (run === this.running && e instanceof ApiError) this.listeners?.failed(e);
      } finally {
        busy = false;
      }
    };
    while (run === this.running) {
      const controller = new AbortController();
      this.controller = controller;
      let silence = setTimeout(() => controller.abort(), SILENCE_MS);
      try {
        const response = await fetch("/api/v1/events", { credentials: "same-origin", headers: OURS, signal: controller.signal });
        if (!response.ok) {
          const e = await failureOf(response);
          // Refused for good (the session ended, no longer a lead): asking again cannot help.
          if (e.code === "unauthorized" || e.code === "forbidden") {
            if (run === this.running) this.listeners?.failed(e);
            return;
          }
          throw e;
        }
        const reader = response.body?.getReader();
        const decoder = new TextDecoder();
        let pending = "";
        for (;;) {
          const chunk = await reader?.read();
          if (!chunk || chunk.done) break;
          clearTimeout(silence);
          silence = setTimeout(() => controller.abort(), SILENCE_MS);
          pending += decoder.decode(chunk.value, { stream: true });
          const blocks = pending.split("\n\n");
          pending = blocks.pop() ?? "";
          for (const block of blocks) {
            const event = /^event: (\w+)$/m.exec(block)?.[1];
            if (event === "ready") this.listeners?.link(null);
            if (event === "ready" || event === "answer") void refresh();
          }
        }
      } catch {
        // A dropped stream, a silent one, or the server away: said, then followed again.
      } finally {
        clearTimeout(silence);
      }
      if (run !== this.running) return;
      this.listeners?.link(unreachable());
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

const dashboards = new DashboardFollower();

/** The browser's `onDashboard`: snapshots once `watchDashboard` starts the stream. */
export async function followDashboardOverHttp(
  snapshot: (d: Dashboard) => void,
  failed: (e: ApiError) => void,
  link: (down: ApiError | null) => void,
): Promise<() => void> {
  return dashboards.listen({ snapshot, failed, link });
}
