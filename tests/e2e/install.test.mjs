// End to end: the Debian package installs on this machine and the installed app opens
// the demo project it carries. Needs the package (scripts/package --debug, or
// scripts/package) and root (or password-less sudo) to install it; scripts/test-all
// builds it first. Without a package the test is skipped, except under CI=true, where it
// fails.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cli, saveScreenshot, startApp, targetDir } from "./harness.mjs";

const installedApp = "/usr/bin/factdesk-app";
const installedDemo = "/usr/lib/Factdesk/demo";

/** The newest package scripts/package left, or FACTDESK_DEB. */
function packagePath() {
  if (process.env.FACTDESK_DEB) return process.env.FACTDESK_DEB;
  const dir = join(targetDir, "package");
  if (!existsSync(dir)) return null;
  const debs = readdirSync(dir)
    .filter((f) => /^factdesk_.*\.deb$/.test(f))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return debs[0] ?? null;
}

function asRoot(args) {
  const root = process.getuid?.() === 0;
  return execFileSync(root ? args[0] : "sudo", root ? args.slice(1) : ["-n", ...args], {
    encoding: "utf8",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function installedVersion() {
  try {
    return execFileSync("dpkg-query", ["-W", "-f=${Status} ${Version}", "factdesk"], { encoding: "utf8" });
  } catch {
    return "";
  }
}

test("the installed package opens its demo project", async (t) => {
  const deb = packagePath();
  if (!deb) {
    assert.notEqual(process.env.CI, "true", "CI=true but there is no package: run scripts/package --debug first");
    t.skip("no package: run scripts/package --debug (or scripts/package) first");
    return;
  }
  const before = installedVersion();
  const work = mkdtempSync(join(tmpdir(), "factdesk-install-"));
  let app;
  let session;
  try {
    // apt resolves the package's dependencies (WebKitGTK and friends) as an annotator's would.
    asRoot(["apt-get", "install", "-y", "--no-install-recommends", "--reinstall", deb]);
    assert.match(installedVersion(), /^install ok installed /);
    assert.ok(existsSync(installedApp), `${installedApp} was not installed`);
    for (const f of ["demo.fdesk", "claims.jsonl", "documents.jsonl", "README.md"]) {
      assert.ok(existsSync(join(installedDemo, f)), `${installedDemo}/${f} was not installed`);
    }
    assert.ok(
      readdirSync("/usr/share/applications").some((f) => /factdesk/i.test(f)),
      "no desktop entry was installed",
    );

    // As the README tells an annotator: copy the demo somewhere writable, then open it.
    const demo = join(work, "demo");
    cpSync(installedDemo, demo, { recursive: true });
    const project = join(demo, "demo.fdesk");
    const expected = JSON.parse(cli(["stats", project, "--json"])).claims;
    assert.ok(expected > 0, "the packaged demo has no claims");

    app = await startApp(work, project, {}, installedApp);
    session = await app.open();
    const claims = await session.waitFor("[data-testid=count-claims]", 60_000);
    assert.equal(await session.text(claims), String(expected));
    const name = await session.find("[data-testid=project-name]");
    assert.equal(await session.text(name), "demo");
    await saveScreenshot(session, "installed.png");
  } catch (e) {
    if (app) t.diagnostic(app.logs());
    throw e;
  } finally {
    await session?.delete().catch(() => {});
    await app?.stop();
    // Leave the machine as it was: remove the package unless it was installed before.
    if (!before.startsWith("install ok installed")) {
      try {
        asRoot(["apt-get", "remove", "-y", "factdesk"]);
      } catch (e) {
        t.diagnostic(`could not remove the package: ${e.message}`);
      }
    }
    rmSync(work, { recursive: true, force: true });
  }
});
