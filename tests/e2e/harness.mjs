// Starting and stopping what the end-to-end tests need: a display, tauri-driver, the app,
// projects made with the real CLI, and screenshots.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cropPng } from "./png.mjs";
import { Session, waitForDriver } from "./webdriver.mjs";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const targetDir = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repo, "target");

/** The demo project's claims and documents (assets/demo). */
export function demoFiles() {
  return {
    claims: join(repo, "assets", "demo", "claims.jsonl"),
    documents: join(repo, "assets", "demo", "documents.jsonl"),
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Spawns a process in its own group (so stop() takes its children too), keeping its output. */
export function launch(label, command, args, env) {
  let output = "";
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  child.on("error", (e) => keep(`could not start ${command}: ${e.message}\n`));
  child.label = label;
  child.log = () => output;
  return child;
}

/** Ends a process group started by launch(): politely, then firmly. */
export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once("exit", r));
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // Already gone.
    }
  };
  const within = (ms) => Promise.race([exited.then(() => true), sleep(ms).then(() => false)]);
  signal("SIGTERM");
  if (await within(3000)) return;
  signal("SIGKILL");
  // SIGKILL cannot be caught, so the exit follows; on a loaded machine it can take a
  // moment to be reaped. Wait for it, and say which process it was if it never comes
  // (the next test would otherwise meet it on its port or display).
  if (await within(10_000)) return;
  throw new Error(`${child.label} (pid ${child.pid}) did not exit 10 s after SIGKILL; it said:\n${child.log()}`);
}

/**
 * Stops every process in `processes`, the last started first; one that would not exit
 * does not keep the others running: all are stopped, then the first such error is thrown.
 */
export async function stopAll(processes) {
  const failed = [];
  for (const p of [...processes].reverse()) {
    try {
      await stop(p);
    } catch (e) {
      failed.push(e);
    }
  }
  if (failed.length) throw failed[0];
}

/** The current X display, or a fresh Xvfb when there is none. */
export async function startDisplay() {
  if (process.env.DISPLAY) return { name: process.env.DISPLAY, process: null };
  let n = 99;
  while (existsSync(`/tmp/.X${n}-lock`)) n += 1;
  const xvfb = launch("Xvfb", "Xvfb", [`:${n}`, "-screen", "0", "1280x900x24", "-nolisten", "tcp"], {});
  for (let i = 0; i < 100 && !existsSync(`/tmp/.X11-unix/X${n}`); i += 1) {
    if (xvfb.exitCode !== null) break;
    await sleep(100);
  }
  if (!existsSync(`/tmp/.X11-unix/X${n}`)) {
    await stop(xvfb);
    throw new Error(`Xvfb :${n} did not start:\n${xvfb.log()}`);
  }
  return { name: `:${n}`, process: xvfb };
}

/**
 * tauri-driver on 127.0.0.1:4444 (FACTDESK_E2E_PORT to change, or `port`), ready for
 * sessions; its WebKitWebDriver listens on the port after it.
 */
export async function startDriver(env, port = Number(process.env.FACTDESK_E2E_PORT ?? 4444)) {
  const driver = launch("tauri-driver", "tauri-driver", ["--port", String(port), "--native-port", String(port + 1)], env);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForDriver(url, 20_000);
  } catch (e) {
    await stop(driver);
    throw new Error(`${e.message}\n${driver.log()}`);
  }
  return { url, process: driver };
}

export const factdeskBin = join(targetDir, "debug", "factdesk");
export const appBin = join(targetDir, "debug", "factdesk-app");

/** Runs the real CLI and returns what it printed; `input` goes to its stdin. */
export function cli(args, input) {
  return execFileSync(factdeskBin, args, {
    encoding: "utf8",
    input,
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
}

/** A fresh project of the demo data (assets/demo) at `path`. */
export function demoProject(path) {
  const demo = demoFiles();
  cli(["init", path]);
  // The demo asks for supporting sentences, so its trick is the negation the tests find by its text.
  cli(["settings", path, "--set", "evidence_stance=supports"]);
  cli(["import", path, demo.claims, "--docs", demo.documents]);
  // A fixed seed, so the items each test meets, and their order, are the same in every
  // run: a project's seed is otherwise drawn at random when it is made, and a test's
  // assertions (a kappa that moves, a search that finds a claim, a refutation that passes
  // the checks) held for most seeds but not all. The trick's slot is drawn from the
  // project's secret, not the seed: tests pick sentences by their text (steps.mjs).
  cli(["settings", path, "--set", "seed=1"]);
}

/**
 * A display and tauri-driver for the app, with the app's config and caches kept in
 * `work`; stop() ends them. The app starts on `project` in each session; `env` is added
 * to its environment (GTK_THEME=Adwaita:dark for the dark theme); `application` is the
 * app's binary (the installed one, for the package's test).
 */
export async function startApp(work, project, env = {}, application = appBin) {
  for (const bin of [factdeskBin, application]) if (!existsSync(bin)) throw new Error(`${bin} is missing; build it first`);
  const processes = [];
  const display = await startDisplay();
  if (display.process) processes.push(display.process);
  try {
    const driver = await startDriver({
      DISPLAY: display.name,
      FACTDESK_PROJECT: project,
      XDG_CONFIG_HOME: join(work, "config"),
      XDG_DATA_HOME: join(work, "data"),
      XDG_CACHE_HOME: join(work, "cache"),
      ...env,
    });
    processes.push(driver.process);
    return {
      /** Starts the app in a new WebDriver session. */
      open: () =>
        Session.create(driver.url, { alwaysMatch: { "tauri:options": { application, args: [project] } } }),
      logs: () => processes.map((p) => `${p.label} said:\n${p.log()}`).join("\n"),
      stop: () => stopAll(processes),
    };
  } catch (e) {
    await stopAll(processes).catch(() => {});
    throw e;
  }
}

/**
 * The DOM is ready before WebKit has painted it, and a screenshot taken too soon is an
 * empty page (a few kilobytes of flat colour): wait for paint, and take it again while it
 * is. A window still blank after that is an error, never a blank screenshot saved.
 */
export async function paintedScreenshot(session, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  const sizes = [];
  for (;;) {
    await session.afterPaint();
    const png = await session.screenshot();
    if (png.length > 10_000) return png;
    sizes.push(png.length);
    if (Date.now() > deadline) {
      throw new Error(
        `the window was still blank (a flat colour) ${timeoutMs} ms on: ${sizes.length} screenshots of ${sizes.join(", ")} bytes, none over 10 000`,
      );
    }
    await sleep(300);
  }
}

/**
 * Saves a screenshot of the app as docs/screenshots/`name` (which may name a subfolder):
 * the whole window, which must be scrolled to its top (one taken mid-scroll cut the app
 * bar off and showed the scrollbar's thumb partway), unless `scrolled` says why it is
 * not, or with `element` (a selector) that element alone, a part of a screen with its
 * own heading.
 */
export async function saveScreenshot(session, name, { element, scrolled } = {}) {
  // `scrolled` says why a whole-window capture is deliberately taken partway down a page.
  if (element === undefined && scrolled === undefined) {
    const down = await session.execute("return scrollY");
    if (down !== 0) throw new Error(`${name}: the window is scrolled ${down} px down; capture it from the top (atTop) or capture an element`);
  }
  const dir = join(repo, "docs", "screenshots");
  mkdirSync(dirname(join(dir, name)), { recursive: true });
  writeFileSync(join(dir, name), element === undefined ? await paintedScreenshot(session) : await elementScreenshot(session, element));
}

/**
 * The element matching `css`, cut out of a screenshot of the window with the element
 * scrolled to its top (what does not fit in the window is left off); the window is then
 * scrolled back to where it was.
 */
async function elementScreenshot(session, css) {
  await session.waitFor(css);
  const was = await session.execute("return scrollY");
  await session.execute("document.querySelector(arguments[0]).scrollIntoView({ block: 'start' })", [css]);
  try {
    const png = await paintedScreenshot(session);
    const rect = await session.execute(
      "const r = document.querySelector(arguments[0]).getBoundingClientRect(); const k = devicePixelRatio; return { x: r.left * k, y: r.top * k, width: r.width * k, height: r.height * k };",
      [css],
    );
    return cropPng(png, rect);
  } finally {
    await session.execute("window.scrollTo(0, arguments[0])", [was]);
  }
}

/** Scrolls the window back to its top, for a whole-window screenshot. */
export async function atTop(session) {
  await session.execute("window.scrollTo(0, 0)");
  await session.until("the window at its top", async () => (await session.execute("return scrollY")) === 0);
}
