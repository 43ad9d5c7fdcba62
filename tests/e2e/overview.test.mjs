// End to end: the real app, driven over WebDriver, shows a real project's overview.
// Build first: the CLI (cargo build -p factdesk-cli), the UI (npm run build:ui) and the
// app (cargo build -p factdesk-app --features tauri/custom-protocol); scripts/test-all does.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { demoFiles, repo, startDisplay, startDriver, stop, targetDir } from "./harness.mjs";
import { Session } from "./webdriver.mjs";

const factdesk = join(targetDir, "debug", "factdesk");
const app = join(targetDir, "debug", "factdesk-app");

function cli(...args) {
  return execFileSync(factdesk, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * The count is in the DOM before WebKit has painted it, and a screenshot taken too soon is
 * an empty page (a few kilobytes of flat colour): wait for paint, and retake while it is.
 */
async function paintedScreenshot(session) {
  let png;
  for (let i = 0; i < 10; i += 1) {
    await session.afterPaint();
    png = await session.screenshot();
    if (png.length > 10_000) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  return png;
}

test("the overview shows the project's claim count", async (t) => {
  for (const bin of [factdesk, app]) assert.ok(existsSync(bin), `${bin} is missing; build it first`);
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-"));
  const project = join(work, "demo.fdesk");
  const processes = [];
  let session;
  try {
    cli("init", project);
    const demo = demoFiles();
    cli("import", project, demo.claims, "--docs", demo.documents);
    const expected = JSON.parse(cli("stats", project, "--json")).claims;
    assert.ok(Number.isInteger(expected) && expected > 0, `the demo project has no claims: ${expected}`);

    const display = await startDisplay(work);
    if (display.process) processes.push(display.process);
    const driver = await startDriver({
      DISPLAY: display.name,
      FACTDESK_PROJECT: project,
      // Keep the app's recent-projects list and WebKit caches out of the user's home.
      XDG_CONFIG_HOME: join(work, "config"),
      XDG_DATA_HOME: join(work, "data"),
      XDG_CACHE_HOME: join(work, "cache"),
    });
    processes.push(driver.process);

    session = await Session.create(driver.url, {
      alwaysMatch: { "tauri:options": { application: app, args: [project] } },
    });
    const claims = await session.waitFor("[data-testid=count-claims]", 30_000);
    assert.equal(await session.text(claims), String(expected));
    const name = await session.find("[data-testid=project-name]");
    assert.equal(await session.text(name), "demo");

    mkdirSync(join(repo, "docs", "screenshots"), { recursive: true });
    writeFileSync(join(repo, "docs", "screenshots", "overview.png"), await paintedScreenshot(session));
  } catch (e) {
    for (const p of processes) if (p.log) t.diagnostic(`${p.label} said:\n${p.log()}`);
    throw e;
  } finally {
    await session?.delete().catch(() => {});
    for (const p of processes.reverse()) await stop(p);
    rmSync(work, { recursive: true, force: true });
  }
});
