// The browser client: `factdesk serve` serves the app's screens, and people work in a
// real browser (headless Chromium through chromedriver) on the server's project. The
// lead and two annotators sign in in separate browsers; they answer by keyboard and the
// lead's kappa moves within a second; a reload keeps her signed in; an answer whose
// acknowledgement is lost on a dropped connection, and one sent while the server is
// killed and started again, are each stored once; the lead exports gold as a download.
// The server's own rules for a browser are checked over raw HTTP: the page's headers,
// asset paths that try to climb out, the session cookie and the header that keeps other
// sites from using it. With FACTDESK_TEST_PG the scenario runs again on PostgreSQL.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { browserKind, browserSession, size, startBrowserDriver, startRelay } from "./browser.mjs";
import { cli, saveScreenshot, stopAll } from "./harness.mjs";
import { assertAccessible, fadedIn } from "./screens.mjs";
import { LIVE_SLOWEST_MS, answerEvidence, assertLatencies, currentTask, nextByCli, printed, submitByCli, textOf, tid } from "./steps.mjs";
import { freePort, freshDatabase, password, postgres, serve, teamOnServer } from "./team.mjs";
import { Key } from "./webdriver.mjs";

/** Every stored answer of `name` (superseded ones too), from the raw answers. */
function answersOf(project, work, name) {
  const out = join(work, `answers-${Date.now()}.jsonl`);
  cli(["answers", project, "--out", out]);
  const rows = readFileSync(out, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  rmSync(out);
  return rows.filter((r) => r.annotator === name);
}

/** A request sent as bytes, so that a path with ".." reaches the server as written; the
 * server closes the connection once it answered (Connection: close). */
function raw(port, request) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let got = "";
    socket.on("data", (d) => (got += d.toString("latin1")));
    socket.on("end", () => resolve(got));
    socket.on("error", reject);
  });
}

test("in a browser: sign-in, keyboard answers, the lead's kappa live, and no answer lost or doubled by a reload, a dropped connection or a killed server", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-browser-"));
  // The screenshots are Chromium's (its colour scheme can be set per window).
  await browserTeam(t, work, join(work, "team.fdesk"), browserKind === "chromium");
});

test("the same on a PostgreSQL project", { skip: postgres ? false : "FACTDESK_TEST_PG is not set" }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-browser-pg-"));
  const db = freshDatabase("browser");
  try {
    await browserTeam(t, work, db.url, false);
  } finally {
    db.drop();
  }
});

/** What the server answers a browser, over HTTP. */
async function serverRules(t, url, port) {
  const page = await fetch(`${url}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  const csp = page.headers.get("content-security-policy") ?? "";
  for (const rule of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.includes(rule), `CSP ${csp} has ${rule}`);
  assert.equal(page.headers.get("cache-control"), "no-cache");
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
  assert.ok(script, "the page names its script");
  const asset = await fetch(`${url}${script}`);
  assert.equal(asset.status, 200);
  assert.match(asset.headers.get("cache-control") ?? "", /immutable/);
  // Paths that climb out of the assets reach nothing but the embedded files.
  for (const path of ["/assets/../../Cargo.toml", "/assets/..%2f..%2fCargo.toml", "/assets/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/assets/"]) {
    const answer = await raw(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 (404|400)/, `${path}: ${answer.split("\r\n")[0]}`);
    assert.ok(!answer.includes("[workspace]") && !answer.includes("root:"), path);
  }

  // A browser's sign-in: the token in an HttpOnly, SameSite=Strict cookie, never in the body.
  const ours = { "x-factdesk-browser": "1", "content-type": "application/json" };
  const login = await fetch(`${url}/api/v1/login`, { method: "POST", headers: ours, body: JSON.stringify({ name: "dev", password: password("dev") }) });
  assert.equal(login.status, 200);
  const cookie = login.headers.get("set-cookie") ?? "";
  assert.match(cookie, /^factdesk_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
  const body = await login.json();
  assert.deepEqual(Object.keys(body).sort(), ["expires_at", "role"]);
  const session = cookie.split(";")[0];
  const me = (headers) => fetch(`${url}/api/v1/call`, { method: "POST", headers: { cookie: session, ...headers }, body: JSON.stringify({ op: "me" }) });
  assert.equal((await me(ours)).status, 200);
  // The cookie alone, as another site's form would send it: refused, nothing done.
  const forged = await me({ "content-type": "text/plain" });
  assert.equal(forged.status, 403);
  assert.equal((await forged.json()).code, "forbidden");
  const logout = await fetch(`${url}/api/v1/logout`, { method: "POST", headers: { cookie: session, ...ours } });
  assert.equal(logout.status, 204);
  assert.match(logout.headers.get("set-cookie") ?? "", /^factdesk_session=; .*Max-Age=0/);
  assert.equal((await me(ours)).status, 401, "the session ended with the sign-out");
  t.diagnostic(`the page's policy: ${csp}`);
}

/** Gives the page's open file chooser `paths`, as a person picking them would. */
async function choose(session, paths) {
  const input = await session.waitFor(tid("file-chooser"), 10_000);
  await session.sendKeys(input, paths.join("\n"));
}

const setField = (session, id, value) =>
  session.execute(
    "const e = document.querySelector('[data-testid=' + arguments[0] + ']'); e.value = arguments[1]; e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change'));",
    [id, value],
  );

/** In the lead's browser: an import of two claims from a chosen file, then a pack issued
 * for ana as a download, answered offline with the CLI and merged back as an upload. */
async function leadUploads(t, lead, project, work) {
  const claims = () => JSON.parse(cli(["stats", project, "--json"])).claims;
  await lead.keys(Key.Escape);
  await lead.waitFor(tid("home"), 20_000);
  const before = claims();
  const file = join(work, "more-claims.jsonl");
  const line = (id) => JSON.stringify({ id, claim: `Browser upload claim ${id}.`, label: "SUPPORTED", evidence: [] });
  writeFileSync(file, `${line("browser-1")}\n${line("browser-2")}\n`);
  await lead.clickWhenStill(tid("import-choose-claims"));
  await choose(lead, [file]);
  await lead.until("the chosen file named", async () => (await textOf(lead, tid("import-claims"))).includes("more-claims.jsonl"));
  await lead.clickOn(tid("import-start"));
  await lead.waitFor(tid("import-done"), 60_000);
  assert.equal(claims(), before + 2, "two claims imported from the upload");

  await lead.clickOn(tid("open-issue-pack"));
  await lead.until("the annotators listed", async () => (await lead.findAll(`${tid("issue-annotator")} option`)).length >= 3);
  await setField(lead, "issue-annotator", "ana");
  await setField(lead, "issue-kind", "label");
  await setField(lead, "issue-count", "2");
  await setField(lead, "issue-out", "for-ana.fdpack");
  await lead.clickOn(tid("issue-write"));
  await lead.waitFor(tid("issue-done"), 20_000);
  const pack = join(lead.downloads, "for-ana.fdpack");
  await lead.until("the pack downloaded", async () => existsSync(pack) && !readdirSync(lead.downloads).some((f) => f.endsWith(".crdownload") || f.endsWith(".part")), 20_000, 200);
  for (let i = 0; i < 2; i += 1) {
    const item = nextByCli(pack, "ana", "label");
    assert.ok(item, "the pack holds two label items");
    submitByCli(pack, "ana", [{ task_id: item.task_id, label: "SUPPORTED", duration_ms: 4000 }]);
  }
  await lead.keys(Key.Escape);
  await lead.waitFor(tid("home"), 20_000);
  await lead.until("the issued pack listed", async () => (await lead.findAll(`${tid("packs")} tr`)).length === 1, 20_000);
  await lead.clickWhenStill(tid("merge-choose"));
  await choose(lead, [pack]);
  await lead.waitFor(tid("merge-outcome"), 20_000);
  assert.match(await textOf(lead, tid("merge-outcome")), /^for-ana\.fdpack: 2 answers from ana added/);
  t.diagnostic("imported 2 claims and merged a returned pack, both as uploads from the page");
}

async function browserTeam(t, work, project, photos) {
  const processes = [];
  const sessions = [];
  let relay = null;
  try {
    teamOnServer(project);
    // Cara and dev agree on the evidence of every claim, so the gold export has lines.
    cli(["tasks", project, "--kind", "evidence", "--overlap", "2"]);
    for (const name of ["cara", "dev"]) answerEvidence(project, name, 40);
    const port = await freePort();
    let server = await serve(project, port);
    processes.push(server.process);
    await serverRules(t, server.url, port);
    relay = await startRelay(port);
    // A driver for each person: WebKitWebDriver drives one browser at a time.
    const open = async (label, size) => {
      const driver = await startBrowserDriver(processes, await freePort());
      const s = await browserSession(driver, work, label, size);
      sessions.push(s);
      return s;
    };
    const signIn = async (s, name) => {
      await s.waitFor(tid("connect-screen"), 20_000);
      assert.equal((await s.findAll(tid("server-url"))).length, 0, "the address is the page's own");
      for (const [id, value] of [["server-name", name], ["server-password", password(name)]]) {
        const field = await s.find(tid(id));
        await s.clear(field);
        await s.sendKeys(field, value);
      }
      await s.sendKeys(await s.find(tid("server-password")), Key.Enter);
      await s.waitFor(tid("home"), 20_000);
      assert.equal(await textOf(s, `${tid("current-person")} .bar-person-name`), name);
    };

    // The lead signs in at the server's address and opens the dashboard.
    const lead = await open("lead", [1440, 900]);
    await lead.cmd("POST", "/url", { url: server.url });
    await lead.waitFor(tid("connect-screen"), 20_000);
    if (photos) await saveScreenshot(lead, "browser/light-1440-sign-in.png");
    // As in the app: labelled fields, contrast, landmarks (axe; serious and critical fail).
    await assertAccessible(lead, "browser sign-in");
    await signIn(lead, "maria");
    await lead.clickOn(tid("open-dashboard"));
    await lead.waitFor(tid("fleiss-label"), 20_000);
    assert.equal(await textOf(lead, tid("fleiss-label")), printed(project));

    // Ana, in another browser, through the relay; label work by its key.
    const ana = await open("ana", [1024, 640]);
    await ana.cmd("POST", "/url", { url: relay.url });
    await signIn(ana, "ana");
    await ana.keys("4");
    await ana.waitFor(tid("label-1"), 20_000);
    const savedIn = (s, task) =>
      s.until(`the ack for task ${task}`, async () => ((await s.attribute(await s.find(tid("saved-indicator")), "data-task")) === String(task) ? true : null), 60_000, 100);
    const saved = (task) => savedIn(ana, task);
    const latencies = [];
    for (let round = 0; round < 5; round += 1) {
      const task = await currentTask(ana);
      const before = await textOf(lead, tid("fleiss-label"));
      await ana.keys(String(round % 2 === 1 ? 3 : 2));
      const pressed = Date.now();
      await ana.keys(Key.Enter);
      const after = await lead.until("the lead's kappa to change", async () => {
        const now = await lead.execute("const e = document.querySelector('[data-testid=fleiss-label]'); return e && e.textContent");
        return now !== null && now !== before ? now : null;
      }, 2 * LIVE_SLOWEST_MS, 10);
      latencies.push(Date.now() - pressed);
      assert.equal(after, printed(project), "the kappa factdesk agreement prints");
      await saved(task);
    }
    assertLatencies(t, "the lead's dashboard in a browser after an answer in another browser", latencies);
    // A second annotator, in a browser of her own: her answers reach the lead's kappa too.
    cli(["annotators", project, "add", "eli", "--password-stdin"], `${password("eli")}\n`);
    const eli = await open("eli", [1024, 640]);
    await eli.cmd("POST", "/url", { url: server.url });
    await signIn(eli, "eli");
    await eli.keys("4");
    await eli.waitFor(tid("label-1"), 20_000);
    for (let round = 0; round < 2; round += 1) {
      const task = await currentTask(eli);
      await eli.keys(String(round + 1));
      await eli.keys(Key.Enter);
      await savedIn(eli, task);
      await lead.until("the lead's kappa as factdesk agreement prints it", async () => (await textOf(lead, tid("fleiss-label"))) === printed(project), 2 * LIVE_SLOWEST_MS, 50);
    }
    t.diagnostic(`a second annotator (eli) answered 2 items by keyboard; the lead's kappa ${await textOf(lead, tid("fleiss-label"))}`);

    // Once the next item has faded in: axe would measure a half-faded text.
    await currentTask(ana);
    await fadedIn(ana);
    await assertAccessible(ana, "browser label work");
    await assertAccessible(lead, "browser dashboard");
    if (photos) {
      await saveScreenshot(lead, "browser/light-1440-dashboard.png");
      await size(lead, [1440, 900], "dark");
      await saveScreenshot(lead, "browser/dark-1440-dashboard.png");
      await size(lead, [1440, 900], "light");
    }

    // A reload keeps her signed in and loses nothing.
    const before = answersOf(project, work, "ana").length;
    await ana.cmd("POST", "/refresh", {});
    await ana.waitFor(tid("home"), 20_000);
    assert.equal(answersOf(project, work, "ana").length, before);
    await ana.keys("4");
    await ana.waitFor(tid("label-1"), 20_000);

    // The connection drops after the server stored her answer, before she hears it: the
    // browser sends it again with its key, and it is stored once.
    // (The screen knows an item by her own id for it, the raw answers by the task's: her
    // answers are counted instead.)
    let task = await currentTask(ana);
    let stored = answersOf(project, work, "ana").length;
    relay.dropNextAnswerTo(/"op":"submit_answer"/);
    await ana.keys("2");
    await ana.keys(Key.Enter);
    await saved(task);
    assert.equal(relay.dropped.length, 1, "the relay kept one answer from the browser");
    assert.match(relay.dropped[0], /^HTTP\/1\.1 200/, "the server had stored it");
    assert.equal(answersOf(project, work, "ana").length, stored + 1, "stored once");
    t.diagnostic(`task ${task}: the ack was dropped (${relay.dropped[0]}), the answer sent again, stored once`);

    // The server is killed while she answers: she is told it is not saved yet; once the
    // server is back the same answer is stored, once.
    task = await currentTask(ana);
    stored = answersOf(project, work, "ana").length;
    process.kill(-server.process.pid, "SIGKILL");
    await ana.keys("3");
    await ana.keys(Key.Enter);
    await ana.until("the screen to say it is not saved", async () => /not saved yet/i.test(await textOf(ana, tid("error"))), 20_000);
    // Where "Saved" showed for the item before, "Saving…" while this one waits.
    await ana.until("the indicator to say saving", async () => (await textOf(ana, tid("saved-indicator"))) === "Saving…", 5_000);
    if (photos) await saveScreenshot(ana, "browser/light-1024-not-saved.png");
    server = await serve(project, port);
    processes.push(server.process);
    await saved(task);
    assert.equal((await ana.findAll(tid("error"))).length, 0, "the banner goes once it is saved");
    assert.equal(answersOf(project, work, "ana").length, stored + 1, "stored once");

    // Her screens at both sizes, light and dark.
    if (photos) {
      for (const [w, h] of [[1024, 640], [1440, 900]]) {
        for (const scheme of ["light", "dark"]) {
          await size(ana, [w, h], scheme);
          await ana.afterPaint();
          await saveScreenshot(ana, `browser/${scheme}-${w}-label.png`);
        }
      }
      await size(ana, [1024, 640], "light");
    }

    // The lead exports gold: the file and its card are downloads.
    await lead.keys(Key.Escape);
    await lead.waitFor(tid("home"), 20_000);
    await lead.clickOn(tid("open-export"));
    await lead.waitFor(tid("export-out"), 20_000);
    await lead.execute(
      "const f = document.querySelector('[data-testid=export-out]'); f.value = arguments[0]; f.dispatchEvent(new Event('input'));",
      ["gold.jsonl"],
    );
    const previewed = Number((await lead.until("the preview's count", async () => /^\d[\d,]*$/.test(await textOf(lead, tid("export-lines"))) && (await textOf(lead, tid("export-lines"))), 20_000)).replace(/,/g, ""));
    await lead.clickOn(tid("export-write"));
    await lead.waitFor(tid("export-done"), 30_000);
    // MiniBrowser (WebKit) saves downloads where its own settings say: the export's
    // answer is checked there, the files in Chromium and Firefox.
    if (browserKind === "webkit") t.diagnostic("WebKit: the export answered; its download folder is MiniBrowser's own");
    const downloaded = (name) => browserKind === "webkit" || existsSync(join(lead.downloads, name)) && !readdirSync(lead.downloads).some((f) => f.endsWith(".crdownload"));
    await lead.until("the gold file and its card downloaded", async () => downloaded("gold.jsonl") && downloaded("gold.card.md"), 20_000, 200);
    const lines = browserKind === "webkit" ? [] : readFileSync(join(lead.downloads, "gold.jsonl"), "utf8").split("\n").filter(Boolean);
    if (browserKind !== "webkit") {
      assert.ok(lines.length > 0, "gold lines");
      assert.equal(lines.length, previewed, "as many lines as the preview said");
      for (const line of lines) JSON.parse(line);
    }
    if (photos) await saveScreenshot(lead, "browser/light-1440-export.png");
    t.diagnostic(`exported ${lines.length} gold lines as a download`);

    // The lead's uploads: claims to import and a returned pack to merge are chosen in the
    // page and sent as bytes. In Chromium only: headless Firefox cancels a file chooser
    // at once, with no way to hold it open, and MiniBrowser keeps its downloads elsewhere.
    if (browserKind === "chromium") await leadUploads(t, lead, project, work);

    // A lead disables ana: her next answer is refused and the sign-in form says why;
    // enabled again, she signs in again.
    cli(["annotators", project, "disable", "ana"]);
    await ana.keys("1");
    await ana.keys(Key.Enter);
    await ana.waitFor(tid("connect-reason"), 20_000);
    assert.match(await textOf(ana, tid("connect-reason")), /sign in again/i);
    assert.equal(await ana.execute("return document.querySelector('[data-testid=server-name]').value"), "ana", "her name is kept");
    if (photos) await saveScreenshot(ana, "browser/light-1024-session-ended.png");
    cli(["annotators", project, "enable", "ana"]);
    await signIn(ana, "ana");

    // Signing out ends the session: a reload shows the sign-in form.
    await ana.clickOn(tid("sign-out"));
    await ana.waitFor(tid("connect-screen"), 20_000);
    await ana.cmd("POST", "/refresh", {});
    await ana.waitFor(tid("connect-screen"), 20_000);
    if (photos) {
      await size(ana, [1024, 640], "dark");
      await saveScreenshot(ana, "browser/dark-1024-sign-in.png");
    }
  } catch (e) {
    for (const s of sessions) {
      const banner = await s.execute("return document.querySelector('[data-testid=error]')?.textContent ?? null;", []).catch(() => null);
      if (banner) t.diagnostic(`a browser showed the error: ${banner}`);
    }
    for (const p of processes) t.diagnostic(`${p.label} said:\n${p.log()}`);
    throw e;
  } finally {
    for (const s of sessions) await s.delete().catch(() => {});
    relay?.close();
    try {
      await stopAll(processes);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
