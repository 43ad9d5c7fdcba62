// End to end: the real app, driven over WebDriver, shows a real project's overview.
// Build first: the CLI (cargo build -p factdesk-cli), the UI (npm run build:ui) and the
// app (cargo build -p factdesk-app --features tauri/custom-protocol); scripts/test-all does.

import assert from "node:assert/strict";
import { test } from "node:test";
import { cli, demoProject, saveScreenshot } from "./harness.mjs";
import { inApp } from "./screens.mjs";

/** The demo project; returns its claim count as the CLI gives it. */
function counted(project) {
  demoProject(project);
  const expected = JSON.parse(cli(["stats", project, "--json"])).claims;
  assert.ok(Number.isInteger(expected) && expected > 0, `the demo project has no claims: ${expected}`);
  return expected;
}

test("the overview shows the project's claim count", async (t) => {
  await inApp(t, { make: counted, size: null }, async (session, { made: expected }) => {
    const claims = await session.waitFor("[data-testid=count-claims]", 30_000);
    assert.equal(await session.text(claims), String(expected));
    const name = await session.find("[data-testid=project-name]");
    assert.equal(await session.text(name), "demo");
    await saveScreenshot(session, "overview.png");
  });
});
