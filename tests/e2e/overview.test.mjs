// End to end: the real app, driven over WebDriver, shows a real project's overview.
// Build first: the CLI (cargo build -p factdesk-cli), the UI (npm run build:ui) and the
// app (cargo build -p factdesk-app --features tauri/custom-protocol); scripts/test-all does.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cli, demoProject, saveScreenshot, startApp } from "./harness.mjs";

test("the overview shows the project's claim count", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-"));
  const project = join(work, "demo.fdesk");
  let app;
  let session;
  try {
    demoProject(project);
    const expected = JSON.parse(cli(["stats", project, "--json"])).claims;
    assert.ok(Number.isInteger(expected) && expected > 0, `the demo project has no claims: ${expected}`);

    app = await startApp(work, project);
    session = await app.open();
    const claims = await session.waitFor("[data-testid=count-claims]", 30_000);
    assert.equal(await session.text(claims), String(expected));
    const name = await session.find("[data-testid=project-name]");
    assert.equal(await session.text(name), "demo");
    await saveScreenshot(session, "overview.png");
  } catch (e) {
    if (app) t.diagnostic(app.logs());
    throw e;
  } finally {
    await session?.delete().catch(() => {});
    await app?.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
