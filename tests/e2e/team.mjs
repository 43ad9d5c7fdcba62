// What the end-to-end tests on a team server share: a demo team whose people sign in
// with passwords, a real `factdesk serve`, an app instance with its own tauri-driver, the
// connect screen filled in by keyboard, and a fresh PostgreSQL database.

import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { appBin, cli, demoProject, factdeskBin, launch, startDriver, stop } from "./harness.mjs";
import { windowSize } from "./screens.mjs";
import { nextByCli, submitByCli, tid } from "./steps.mjs";
import { Key, Session } from "./webdriver.mjs";

export const LABELS = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO"];
export const password = (name) => `${name}-pass-7421`;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A port nobody listens on now, for an address that must not answer or a server that must
 * come back on the same port. It is drawn below the system's ephemeral range (on Linux
 * /proc/sys/net/ipv4/ip_local_port_range, 32768 up by default; 49152 up elsewhere), where
 * neither a bind to port 0 (other tests, other servers) nor an outgoing connection's own
 * port is ever put, so nothing but a process asking for that very port can take it before
 * it is used. A server that needs no fixed port is better started by serve() without one.
 */
export async function freePort() {
  let low = 32768;
  try {
    const { readFileSync } = await import("node:fs");
    low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || low;
  } catch {
    // Not Linux: the range starts at 49152 or above.
  }
  const top = Math.min(low, 32768);
  const bottom = Math.max(1024, top - 12_000);
  const listens = (port) =>
    new Promise((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
  if (top - bottom >= 1000) {
    for (let i = 0; i < 50; i += 1) {
      const port = bottom + Math.floor(Math.random() * (top - bottom));
      if (await listens(port)) return port;
    }
  }
  // A system whose ephemeral range leaves no room below it: a port it chooses.
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The demo with a lead and three annotators who sign in with passwords; cara and dev label every claim. */
export function teamOnServer(project) {
  demoProject(project);
  cli(["annotators", project, "add", "maria", "--role", "lead", "--password-stdin"], `${password("maria")}\n`);
  for (const name of ["ana", "cara", "dev"]) cli(["annotators", project, "add", name, "--password-stdin"], `${password(name)}\n`);
  cli(["tasks", project, "--kind", "label", "--overlap", "3"]);
  for (const [name, odd] of [
    ["cara", (task) => task % 4 === 0],
    ["dev", (task) => task % 5 === 0],
  ]) {
    for (let i = 0; i < 100; i += 1) {
      const item = nextByCli(project, name, "label");
      if (!item) break;
      submitByCli(project, name, [{ task_id: item.task_id, label: LABELS[odd(item.task_id) ? 1 : 0], duration_ms: 5000 }]);
    }
  }
}

/**
 * `factdesk serve` on `project` (with `args` added), answering at the returned address:
 * on `port`, or without one on a port the system chooses (`--listen 127.0.0.1:0`), read
 * back from the line the server prints once it is bound ("serving … on http://…").
 */
export async function serve(project, port = 0, args = []) {
  const server = launch("factdesk serve", factdeskBin, ["serve", project, "--listen", `127.0.0.1:${port}`, ...args], {});
  // A minute at most, for a busy machine; the server says where it listens once bound.
  for (let i = 0; i < 600; i += 1) {
    const said = /^serving .* on (https?:\/\/\S+)$/m.exec(server.log());
    if (said) {
      const url = said[1];
      try {
        if ((await fetch(`${url}/api/v1/openapi.json`)).ok) return { url, port: Number(new URL(url).port), process: server };
      } catch {
        // Bound, not answering yet.
      }
    }
    if (server.exitCode !== null) break;
    await sleep(100);
  }
  await stop(server);
  throw new Error(`the server did not start:\n${server.log()}`);
}

/**
 * An app instance on the start screen with its own driver on `port` (its WebKitWebDriver
 * takes the port after it), its config and caches under `work`/`label`; the processes it
 * starts are pushed to `processes`.
 */
export async function appInstance(display, work, label, port, env, processes) {
  const driver = await startDriver(
    {
      DISPLAY: display.name,
      XDG_CONFIG_HOME: join(work, label, "config"),
      XDG_DATA_HOME: join(work, label, "data"),
      XDG_CACHE_HOME: join(work, label, "cache"),
      ...env,
    },
    port,
  );
  processes.push(driver.process);
  // No project at start: an empty argument opens the start screen.
  return Session.create(driver.url, { alwaysMatch: { "tauri:options": { application: appBin, args: [""] } } });
}

/** An app instance (see appInstance) at `width`×`height`. */
export async function sizedInstance(display, work, label, port, env, processes, [width, height]) {
  const session = await appInstance(display, work, label, port, env, processes);
  await windowSize(session, width, height);
  return session;
}

/** Fills in the connect screen and presses Enter. */
export async function connectAs(session, url, name, pass) {
  await session.waitFor(tid("connect-screen"));
  for (const [id, value] of [
    ["server-url", url],
    ["server-name", name],
    ["server-password", pass],
  ]) {
    const field = await session.find(tid(id));
    await session.clear(field);
    await session.sendKeys(field, value);
  }
  await session.sendKeys(await session.find(tid("server-password")), Key.Enter);
}

/** The connect screen's error once it shows. */
export async function connectError(session) {
  return session.until("the connect error", async () => {
    const text = await session.execute("const e = document.querySelector('[data-testid=connect-error]'); return e && e.textContent");
    return text ? text : null;
  }, 20_000);
}

export const postgres = process.env.FACTDESK_TEST_PG ?? "";

/** A fresh database on the test server named `fde2e_<label>_<pid>`, as a project URL, and how to drop it. */
export function freshDatabase(label) {
  const name = `fde2e_${label}_${process.pid}`;
  const sql = (statement) => execFileSync("psql", [postgres, "-q", "-c", statement], { stdio: ["ignore", "pipe", "pipe"] });
  sql(`DROP DATABASE IF EXISTS ${name}`);
  sql(`CREATE DATABASE ${name}`);
  const url = new URL(postgres);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => sql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
