// End to end: one annotator answers in the app, others through `factdesk submit` on the
// same project file; the lead's dashboard shows the kappa `factdesk agreement` prints,
// and a new answer from another process changes it within a second. Each annotator's
// pace is the work screen's figure, bounded: a script's burst is not thousands an hour.

import assert from "node:assert/strict";
import { test } from "node:test";
import { atTop, cli, demoProject, saveScreenshot } from "./harness.mjs";
import { inApp } from "./screens.mjs";
import { LIVE_SLOWEST_MS, TRICK, assertLatencies, currentTask, nextByCli, printed, signInByKeys, submitByCli, submitByEnter, textOf, tid } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

const LABELS = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO"];

/** How many answers from another process are timed to the lead's screen. */
const ROUNDS = 5;

/** The label most annotators give a task in this test (1-based key order). */
const truth = (task) => (task % 4 === 0 ? 1 : task % 6 === 1 ? 2 : 0);

/** `name` labels up to `n` items through the CLI, disagreeing where `odd(task)`. */
function labelByCli(project, name, n, odd) {
  for (let i = 0; i < n; i += 1) {
    const item = nextByCli(project, name, "label");
    if (!item) return;
    const pick = odd(item.task_id) ? (truth(item.task_id) + 1) % 3 : truth(item.task_id);
    const seconds = 4 + (item.task_id % 9);
    submitByCli(project, name, [{ task_id: item.task_id, label: LABELS[pick], duration_ms: seconds * 1000 }]);
  }
}

/** A pace as a number: "1 200 per hour · …" or "1 200" → 1200; "—" → null. */
const paceOf = (text) => (/\d/.test(text) ? Number(text.split(/per hour|\/h/)[0].replace(/\D/g, "")) : null);

/** The demo with a lead and five annotators; cara, dev, ben (and eve, careless) answer by the CLI. */
function dashboardProject(project) {
  demoProject(project);
  cli(["annotators", project, "add", "lead", "--role", "lead"]);
  for (const name of ["ana", "ben", "cara", "dev", "eve"]) cli(["annotators", project, "add", name]);
  cli(["tasks", project, "--kind", "label", "--overlap", "4"]);
  cli(["tasks", project, "--kind", "evidence", "--overlap", "3"]);
  // Cara and Dev label every claim, so any later answer meets theirs.
  labelByCli(project, "cara", 100, (task) => task % 7 === 0);
  labelByCli(project, "dev", 100, (task) => task % 5 === 0);
  labelByCli(project, "ben", 8, (task) => task % 3 === 0);
  // Evidence: two careful annotators and one (Eve) who picks everything, the trick too.
  for (let i = 0; i < 20; i += 1) {
    for (const name of i < 4 ? ["cara", "dev", "eve"] : ["cara", "dev"]) {
      const item = nextByCli(project, name, "evidence");
      if (!item) continue;
      const real = item.options.filter((o) => !o.text.startsWith(TRICK));
      const selected =
        name === "eve" ? item.options.map((o) => o.id) : real.slice(0, name === "cara" || i % 3 ? 1 : 2).map((o) => o.id);
      submitByCli(project, name, [{ task_id: item.task_id, selected, duration_ms: 9000 + 1000 * (i % 5) }]);
    }
  }
}

test("the lead's dashboard follows answers live, with the values factdesk agreement prints", async (t) => {
  await inApp(t, { make: dashboardProject, size: null }, async (session, { project }) => {
    // Ana answers in the app, by keyboard.
    await session.waitFor(tid("person-ana"), 30_000);
    await signInByKeys(session, "ana");
    await session.keys("4");
    await session.waitFor(tid("label-1"));
    for (let i = 0; i < 6; i += 1) {
      const task = await currentTask(session);
      if (task === null) break;
      await session.keys(String(1 + (i === 4 ? (truth(task) + 2) % 3 : truth(task))));
      await submitByEnter(session, Key, task);
    }
    // Her pace on the work screen: six answers in a few seconds count as three seconds each.
    const worked = paceOf(await textOf(session, tid("progress-rate")));
    assert.ok(worked !== null && worked > 0 && worked <= 1200, `ana's pace on the work screen: ${worked}`);

    // An annotator may not follow agreement: the backend refuses, whatever the UI shows.
    const refused = await session.execute(
      "return window.__TAURI_INTERNALS__.invoke('watch_dashboard').then(() => 'allowed', (e) => e.code)",
    );
    assert.equal(refused, "forbidden");

    // The lead opens the dashboard.
    await session.keys(Key.Escape);
    await session.execute("document.activeElement && document.activeElement.blur()");
    await session.keys(Key.Escape);
    await session.waitFor(tid("home"));
    await session.clickOn(tid("switch-person"));
    await signInByKeys(session, "lead");
    await session.clickOn(tid("open-dashboard"));
    await session.waitFor(tid("fleiss-label"), 20_000);
    for (const [kind, fleiss, alpha] of [
      ["label", "fleiss_kappa", "krippendorff_alpha_nominal"],
      ["evidence", "setsel_pooled_fleiss_kappa", "setsel_pooled_krippendorff_alpha_nominal"],
    ]) {
      assert.equal(await textOf(session, tid(`fleiss-${kind}`)), printed(project, kind, fleiss), `${kind} kappa`);
      assert.equal(await textOf(session, tid(`alpha-${kind}`)), printed(project, kind, alpha), `${kind} alpha`);
    }
    // Eve is flagged: her answers leave every kind, as in `factdesk agreement`.
    assert.match(await textOf(session, tid("activity-evidence-eve")), /FLAGGED/);
    // The pace is the work screen's figure for ana, and no one's is beyond one item per
    // three seconds, although cara and dev answered a hundred items in a burst.
    assert.equal(paceOf(await textOf(session, tid("pace-label-ana"))), worked, "ana's pace as her work screen gave it");
    for (const name of ["cara", "dev", "ben"]) {
      const pace = paceOf(await textOf(session, tid(`pace-label-${name}`)));
      assert.ok(pace === null || (pace > 0 && pace <= 1200), `${name}'s pace: ${pace}`);
    }

    // Ben answers from another process: the kappa changes within a second. Every answer
    // is timed, from the CLI's return to the lead's screen (see assertLatencies).
    const latencies = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = await textOf(session, tid("fleiss-label"));
      const item = nextByCli(project, "ben", "label");
      assert.ok(item, "ben has a label item left");
      // Each of these answers moves the kappa (demoProject fixes the seed, so ben gets
      // the same items in every run).
      submitByCli(project, "ben", [{ task_id: item.task_id, label: "NOT ENOUGH INFO" }]);
      const answeredAt = Date.now();
      const after = await session.until("the kappa to change", async () => {
        const now = await session.execute("return document.querySelector('[data-testid=fleiss-label]')?.textContent ?? null");
        return now !== null && now !== before ? now : null;
      }, 2 * LIVE_SLOWEST_MS, 20);
      const took = Date.now() - answeredAt;
      latencies.push(took);
      t.diagnostic(`answer ${round + 1} (task ${item.task_id}): label kappa ${before} -> ${after} in ${took} ms`);
      assert.equal(after, printed(project, "label", "fleiss_kappa"));
    }
    assertLatencies(t, "the dashboard after an answer from another process", latencies);

    // Once the intervals have caught up, the screen is complete.
    await session.until("the label interval", async () =>
      (await textOf(session, tid("fleiss-label-ci"))).startsWith("95% CI") ? true : null,
    );
    await session.until("intervals as of the last answer", async () => {
      const updated = await session.find(tid("dash-updated"));
      const [last, asOf] = await Promise.all([
        session.attribute(updated, "data-last-annotation"),
        session.attribute(updated, "data-intervals-as-of"),
      ]);
      return last !== null && last === asOf ? true : null;
    });
    // The whole window from its top, app bar and all, not wherever the page was left.
    await atTop(session);
    await saveScreenshot(session, "dashboard.png");
  });
});
