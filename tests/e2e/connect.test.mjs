// End to end on a team server: a real `factdesk serve` on a project file, and two
// instances of the app, each driven through its own tauri-driver. The lead connects in
// one and opens the dashboard; an annotator connects in the other and answers by
// keyboard; the lead's kappa changes within a second of her pressing Enter, to the value
// `factdesk agreement` prints. The server is stopped (a network dead without a word: the
// heartbeats stop) and later killed: the dashboard says it is reconnecting each time and
// resumes with what came meanwhile once the server is back. Then a lead disables her: her
// next action asks her to sign in again. The connect screen is checked with axe and photographed, light and dark.
// With FACTDESK_TEST_PG (a role that may create databases), the same runs again with the
// project in a fresh PostgreSQL database.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cli, saveScreenshot, startDisplay, stopAll } from "./harness.mjs";
import { assertAccessible } from "./screens.mjs";
import { LIVE_SLOWEST_MS, assertLatencies, currentTask, nextByCli, printed, submitByCli, textOf, tid } from "./steps.mjs";
import { LABELS, connectAs, connectError, freePort, freshDatabase, password, postgres, serve, sizedInstance, teamOnServer } from "./team.mjs";
import { Key } from "./webdriver.mjs";

/** How many answers are timed from Enter to the lead's screen. */
const ROUNDS = 5;

test("connected to a team server, an annotator's answer moves the lead's kappa within a second", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-connect-"));
  await connectedTeam(t, work, join(work, "team.fdesk"), true);
});

test("the same on a PostgreSQL project", { skip: postgres ? false : "FACTDESK_TEST_PG is not set" }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-connect-pg-"));
  const db = freshDatabase("connect");
  try {
    await connectedTeam(t, work, db.url, false);
  } finally {
    db.drop();
  }
});

/** The whole scenario on `project` (a file or a postgres:// URL); screenshots when `photos`. */
async function connectedTeam(t, work, project, photos) {
  const processes = [];
  const sessions = [];
  try {
    teamOnServer(project);
    const port = await freePort();
    let server = await serve(project, port);
    processes.push(server.process);
    const display = await startDisplay();
    if (display.process) processes.push(display.process);
    const base = Number(process.env.FACTDESK_E2E_PORT ?? 4444);
    const instance = (label, port, env) =>
      sizedInstance(display, work, label, port, env, processes, [1024, 720]).then((session) => {
        sessions.push(session);
        return session;
      });
    const lead = await instance("lead", base, {});
    const ana = await instance("ana", base + 2, { GTK_THEME: "Adwaita:dark" });

    // The lead: "T" opens the connect screen; an unreachable address and a wrong password
    // are said plainly; then the right one goes home, as maria, on the server.
    await lead.waitFor(tid("start-screen"), 30_000);
    await lead.keys("t");
    await connectAs(lead, `http://127.0.0.1:${await freePort()}`, "maria", password("maria"));
    assert.match(await connectError(lead), /cannot reach/i);
    await connectAs(lead, server.url, "maria", "not her password");
    assert.match(await connectError(lead), /wrong name or password/i);
    await lead.execute("document.querySelector('[data-testid=server-password]').blur()");
    if (photos) await saveScreenshot(lead, "connect.png");
    await assertAccessible(lead, "connect (light)");
    await connectAs(lead, server.url, "maria", password("maria"));
    await lead.waitFor(tid("home"), 20_000);
    assert.equal(await textOf(lead, `${tid("current-person")} .bar-person-name`), "maria");
    assert.equal(await textOf(lead, tid("server-badge")), "team server");
    assert.equal((await lead.findAll(tid("switch-person"))).length, 0, "on a server the person is the one signed in");
    await lead.clickOn(tid("open-dashboard"));
    await lead.waitFor(tid("fleiss-label"), 20_000);
    assert.equal(await textOf(lead, tid("fleiss-label")), printed(project));

    // Ana, in the other instance (dark): connects and opens label work by keyboard.
    await ana.waitFor(tid("start-screen"), 30_000);
    await ana.keys("t");
    await ana.waitFor(tid("connect-screen"));
    if (photos) await saveScreenshot(ana, "connect-dark.png");
    await assertAccessible(ana, "connect (dark)");
    await connectAs(ana, server.url, "ana", password("ana"));
    await ana.waitFor(tid("home"), 20_000);
    await ana.keys("4");
    await ana.waitFor(tid("label-1"), 20_000);

    // Every answer is timed, from Enter to the lead's screen (see assertLatencies).
    const latencies = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const task = await currentTask(ana);
      assert.ok(task !== null, "ana has a label item");
      const before = await textOf(lead, tid("fleiss-label"));
      // She disagrees with the others now and then, so each answer moves the kappa.
      await ana.keys(String(round % 2 === 1 ? 3 : 2));
      const pressed = Date.now();
      await ana.keys(Key.Enter);
      const after = await lead.until(
        "the lead's kappa to change",
        async () => {
          const now = await lead.execute("const e = document.querySelector('[data-testid=fleiss-label]'); return e && e.textContent");
          return now !== null && now !== before ? now : null;
        },
        2 * LIVE_SLOWEST_MS,
        10,
      );
      const took = Date.now() - pressed;
      latencies.push(took);
      t.diagnostic(`answer ${round + 1}: label kappa ${before} -> ${after} in ${took} ms from Enter in the other window`);
      assert.equal(after, printed(project), "the kappa factdesk agreement prints");
      await ana.until(`the ack for task ${task}`, async () => {
        const saved = await ana.attribute(await ana.find(tid("saved-indicator")), "data-task");
        return saved === String(task) ? true : null;
      });
    }
    assertLatencies(t, "the lead's dashboard after an answer in the other window", latencies);

    // A network that dies without a word (the server stopped, its connections open): the
    // heartbeats stop, and the lead's dashboard says it is reconnecting; an answer that
    // lands meanwhile (through the CLI, on the project itself) shows once the server is
    // back. Then the server is killed and started again: the same.
    const reconnecting = () =>
      lead.until("the dashboard to say it is reconnecting", async () =>
        (await lead.attribute(await lead.find(tid("dash-link")), "data-live")) === "false" ? true : null,
      30_000, 200);
    const resumed = (what) =>
      lead.until(what, async () => {
        const live = await lead.attribute(await lead.find(tid("dash-link")), "data-live");
        const kappa = await lead.execute("const e = document.querySelector('[data-testid=fleiss-label]'); return e && e.textContent");
        return live === "true" && kappa === printed(project) ? kappa : null;
      }, 30_000, 200);
    const answerByCli = () => {
      const item = nextByCli(project, "ana", "label");
      assert.ok(item, "ana has a label item");
      submitByCli(project, "ana", [{ task_id: item.task_id, label: LABELS[1], duration_ms: 5000 }]);
    };
    process.kill(server.process.pid, "SIGSTOP");
    const stalled = Date.now();
    try {
      await reconnecting();
      t.diagnostic(`server stopped: the dashboard said reconnecting after ${Date.now() - stalled} ms`);
      if (photos) await saveScreenshot(lead, "compact/light-dashboard-reconnecting.png");
      await assertAccessible(lead, "dashboard reconnecting");
      assert.match(await textOf(lead, tid("dash-link")), /reconnecting/i);
      answerByCli();
    } finally {
      process.kill(server.process.pid, "SIGCONT");
    }
    const resumedAt = Date.now();
    t.diagnostic(`server resumed: the dashboard shows kappa ${await resumed("the dashboard to resume")} after ${Date.now() - resumedAt} ms`);
    process.kill(-server.process.pid, "SIGKILL");
    await reconnecting();
    answerByCli();
    server = await serve(project, port);
    processes.push(server.process);
    const restarted = Date.now();
    t.diagnostic(`server killed and restarted: the dashboard shows kappa ${await resumed("the dashboard after a restart")} ${Date.now() - restarted} ms after it listened`);

    // The recent list keeps the server and the name, never the password.
    const recent = readFileSync(join(work, "ana", "config", "org.factdesk.app", "recent-projects.json"), "utf8");
    assert.match(recent, /"person": "ana"/);
    assert.ok(!recent.includes(password("ana")), "no password is kept");

    // A lead disables ana: her next action on the server asks her to sign in again.
    cli(["annotators", project, "disable", "ana"]);
    const task = await currentTask(ana);
    await ana.keys("1");
    await ana.keys(Key.Enter);
    await ana.waitFor(tid("connect-reason"), 10_000);
    assert.match(await textOf(ana, tid("connect-reason")), /sign in again/i);
    assert.equal(await ana.attribute(await ana.find(tid("server-name")), "value"), "ana");
    t.diagnostic(`after disabling: task ${task}'s answer was refused and the connect screen shown`);
  } catch (e) {
    for (const p of processes) t.diagnostic(`${p.label} said:\n${p.log()}`);
    throw e;
  } finally {
    for (const s of sessions) await s.delete().catch(() => {});
    try {
      await stopAll(processes);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
