// End to end: the lead hands Ana a pack with the real CLI; the app opens the pack in
// annotator mode, Ana answers two items and reports a problem with a third by keyboard,
// and returns the results; the lead's app merges the results file from the Packs panel,
// the dashboard counts her answers and the lead's home lists her report.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cli, demoProject, saveScreenshot, startApp } from "./harness.mjs";
import { assertInView, look, rectOf, windowSize } from "./screens.mjs";
import { currentTask, diagnose, itemReady, signInByKeys, submitByCli, submitByEnter, testIds, textOf, tid } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

/** The trick sentence's wording in the demo project (settings.trick_template). */
const TRICK = "It is not true that";

/** The number of the first option on screen that is not the trick. */
async function realOption(session) {
  for (let i = 1; i <= 6; i += 1) {
    const found = await session.findAll(`${tid(`option-${i}`)} .option-text`);
    if (!found.length) break;
    if (!(await session.text(found[0])).includes(TRICK)) return String(i);
  }
  throw new Error("every option on screen is the trick");
}

/** Runs `steps` with the app started on `file` (`env` added), reporting the app's logs on failure. */
async function inApp(t, work, file, steps, env = {}) {
  const app = await startApp(work, file, env);
  let session;
  try {
    session = await app.open();
    await steps(session);
  } catch (e) {
    await diagnose(t, app, session);
    throw e;
  } finally {
    await session?.delete().catch(() => {});
    await app.stop();
  }
}

test("a pack opened in the app, answered and returned; the lead merges it and the dashboard counts it", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-"));
  const project = join(work, "demo.fdesk");
  const pack = join(work, "ana.fdpack");
  const results = join(work, "ana.results.fdpack");
  const foreign = join(work, "other-project.fdpack");
  try {
    demoProject(project);
    cli(["annotators", project, "add", "lead", "--role", "lead"]);
    for (const name of ["ana", "ben"]) cli(["annotators", project, "add", name]);
    cli(["tasks", project, "--kind", "evidence", "--overlap", "3"]);
    cli(["pack", project, "--for", "ana", "--count", "4", "--out", pack]);
    // A pack another project issued, to be refused.
    const other = join(work, "other.fdesk");
    demoProject(other);
    cli(["annotators", other, "add", "ana"]);
    cli(["tasks", other, "--kind", "evidence"]);
    cli(["pack", other, "--for", "ana", "--count", "1", "--out", foreign]);
    const issued = JSON.parse(cli(["packs", project, "--json"]));
    assert.deepEqual(
      issued.map((p) => [p.annotator, p.items, p.state]),
      [["ana", 4, "out"]],
    );

    // Ana's laptop: the app opens the pack in annotator mode.
    let answered = [];
    let reportedClaim = "";
    await inApp(t, work, pack, async (session) => {
      await session.waitFor(tid("person-ana"), 30_000);
      assert.equal((await session.findAll(tid("person-lead"))).length, 0, "a pack holds only its annotator");
      await signInByKeys(session, "ana");
      assert.match(await textOf(session, tid("bar-pack")), /^Pack for ana · due \d{1,2} \w{3} \d{4}$/);
      assert.equal((await session.findAll(tid("lead-panel"))).length, 0, "no lead panel in a pack");
      await session.waitFor(tid("return-results"));

      await session.keys("1");
      await session.waitFor(tid("option-1"));
      for (let i = 0; i < 2; i += 1) {
        const task = await currentTask(session);
        assert.ok(task, `no evidence item ${i + 1} in the pack`);
        const key = await realOption(session);
        await session.keys(key);
        await session.until(`option ${key} checked`, async () =>
          (await session.attribute(await session.find(tid(`option-${key}`)), "aria-checked")) === "true",
        );
        await submitByEnter(session, Key, task);
        answered.push(task);
      }
      // "!" reports a problem from the pack as from the project: kept in the pack, the
      // next item shows.
      await itemReady(session);
      reportedClaim = await textOf(session, tid("item-claim"));
      await session.keys("!");
      await session.waitFor(tid("report-text"));
      await session.keys("The claim says two things.");
      await session.chord(Key.Control, Key.Enter);
      await session.until("the report kept in the pack", async () => /once your lead merges it/.test(await textOf(session, tid("reported"))) ? true : null);
      assert.notEqual(await textOf(session, tid("item-claim")), reportedClaim, "the next item shows");
      await session.execute("document.activeElement && document.activeElement.blur()");
      await session.clickOn(tid("home"));
      await session.waitFor(tid("return-results"));
      await session.clickOn(tid("return-results"));
      await session.waitFor(tid("results-path"));
      assert.equal(await textOf(session, tid("results-path")), results);
      assert.match(await textOf(session, tid("results-said")), /Send this file to your lead/);
      assert.ok(existsSync(results), `${results} was written`);
      await session.execute("document.querySelector('[data-testid=pack-panel]').scrollIntoView({ block: 'end' })");
      await saveScreenshot(session, "pack.png");
      // The pack's screens at 1024×640: its home and its last item, left unanswered.
      await windowSize(session, 1024, 640);
      await session.execute("window.scrollTo(0, 0)");
      // A pack's home shows its own kind of work only, and "Return results" in view.
      await session.until("the pack's one kind of work", async () => {
        const shown = await testIds(session, ".kind-card:not([hidden])");
        return shown.length === 1 && shown[0] === "kind-evidence" ? true : null;
      });
      await assertInView(session, tid("return-results"), "Return results on the pack's first screen");
      await look(session, "light-pack-home", tid("return-results"));
      await session.keys("1");
      await look(session, "light-pack-evidence", tid("option-1"));
      // A pack sends reports too: the Report button, and "!" in the keys "?" lists.
      assert.equal((await session.findAll(tid("report"))).length, 1, "a Report button in a pack");
      await session.keys("?");
      await session.waitFor(tid("keys-help"));
      const sheet = await session.execute("return [...document.querySelectorAll('[data-testid=keys-help] dt')].map((d) => d.textContent)");
      assert.ok(sheet.includes("Esc") && sheet.includes("!"), `the pack's keys: ${sheet.join(" ")}`);
      await session.keys(Key.Escape);
      await session.until("the keys closed", async () => ((await session.findAll(tid("keys-help"))).length === 0 ? true : null));
      await session.execute("document.activeElement && document.activeElement.blur()");
      await session.keys(Key.Escape);
      await session.waitFor(tid("home"));
    });
    assert.equal(answered.length, 2);

    // The same in the dark theme.
    await inApp(
      t,
      work,
      pack,
      async (session) => {
        await windowSize(session, 1024, 640);
        await signInByKeys(session, "ana");
        await look(session, "dark-pack-home", tid("return-results"));
        // The header holds the pack's badge, the search box and both buttons on one line.
        for (const id of ["bar-pack", "search-input", "current-person", "switch-person", "back-to-start"]) {
          const r = await rectOf(session, tid(id));
          assert.ok(r && r.top >= 0 && r.bottom <= 48 && r.height <= 36 && r.right <= r.vw, `${id} does not fit the header at 1024×640: ${JSON.stringify(r)}`);
        }
        await session.keys("1");
        await session.waitFor(tid("option-1"));
        await itemReady(session);
        await look(session, "dark-pack-evidence", tid("option-1"));
      },
      { GTK_THEME: "Adwaita:dark" },
    );

    // Ben answers every item in the project, so Ana's answers meet his on the dashboard.
    for (let i = 0; i < 40; i += 1) {
      const item = JSON.parse(cli(["next", project, "--as", "ben", "--kind", "evidence", "--json"])).item;
      if (!item) break;
      const real = item.options.filter((o) => !o.text.startsWith(TRICK));
      submitByCli(project, "ben", [{ task_id: item.task_id, selected: [real[0].id] }]);
    }

    // The lead's desk: merge the results file through the Packs panel's path field. The
    // merge only reads it: its bytes stay the same and nothing appears beside it.
    const digest = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
    const returned = digest(results);
    await inApp(t, work, project, async (session) => {
      await session.waitFor(tid("person-lead"), 30_000);
      await signInByKeys(session, "lead");
      await session.waitFor(tid("packs-panel"));
      await session.until("the pack listed as out", async () => {
        const states = await session.findAll(`${tid("packs")} ${tid("pack-state")}`);
        return states.length === 1 && (await session.text(states[0])) === "out" ? true : null;
      });
      const field = await session.find(tid("merge-path"));
      await session.sendKeys(field, `${results}${Key.Enter}${foreign}`);
      await session.clickWhenStill(tid("merge-pasted"));
      await session.waitFor(tid("merge-outcome"));
      const outcomes = await session.findAll(tid("merge-outcome"));
      const typed = await session.execute("return document.querySelector('[data-testid=merge-path]').value");
      assert.equal(outcomes.length, 2, `outcomes of ${JSON.stringify(typed)}: ${await Promise.all(outcomes.map((o) => session.text(o)))}`);
      assert.equal(
        await session.text(outcomes[0]),
        "ana.results.fdpack: 2 answers from ana added, 0 already there, 2 unanswered items back in the pool, 1 reported problem added to your list",
      );
      assert.match(await session.text(outcomes[1]), /^other-project\.fdpack: refused, nothing was changed: it belongs to another project/);
      await session.until("the pack listed as returned with 2 merged", async () => {
        const state = await textOf(session, `${tid("packs")} ${tid("pack-state")}`);
        const merged = await textOf(session, `${tid("packs")} ${tid("pack-merged")}`);
        return state === "returned" && merged === "2" ? true : null;
      });

      // The packs panel alone, under its heading, not the window wherever it was scrolled.
      await saveScreenshot(session, "merge.png", { element: tid("packs-panel") });
      await windowSize(session, 1024, 640);
      await look(session, "light-packs", tid("packs-panel"), { element: tid("packs-panel") });
      // "Merge results…" stands clear of the table's last row, not against it.
      const gap = await session.execute(
        "const p = document.querySelector('[data-testid=packs-panel]'); return p.querySelector(':scope > h3').getBoundingClientRect().top - p.querySelector('[data-testid=packs]').getBoundingClientRect().bottom",
      );
      assert.ok(gap >= 16, `"Merge results…" ${gap} px under the packs table`);

      // Merging the same file again adds nothing.
      await session.execute("document.querySelector('[data-testid=merge-path]').value = ''");
      await session.sendKeys(field, results);
      await session.clickWhenStill(tid("merge-pasted"));
      await session.until("the second merge's outcome", async () =>
        (await textOf(session, tid("merge-outcome"))).includes("0 answers from ana added, 2 already there") ? true : null,
      );

      // The dashboard counts Ana's two answers.
      await session.clickOn(tid("open-dashboard"));
      await session.waitFor(tid("activity-evidence-ana"), 20_000);
      // The live dashboard redraws its tables, so the cell is found afresh on every read.
      const answers = await session.until("Ana's answers on the dashboard", async () => {
        const text = await textOf(session, `${tid("activity-evidence-ana")} td`);
        return text === "2" ? text : null;
      });
      assert.equal(answers, "2", "Ana's answers on the dashboard");
      // Both people counted: on a failure, Ana's row (rejected, flagged) and her stored
      // answers say whether her answers picked the trick or she was left out.
      await session
        .until("two annotators counted", async () => (/ 2 annotators · /.test(await textOf(session, tid("dash-counts-evidence"))) ? true : null))
        .catch(async (e) => {
          const row = await textOf(session, tid("activity-evidence-ana")).catch(() => "");
          const out = join(work, "answers.jsonl");
          cli(["answers", project, "--out", out, "--force"]);
          const stored = readFileSync(out, "utf8").split("\n").filter((l) => l.includes('"ana"'));
          throw new Error(`${e.message}; counts ${await textOf(session, tid("dash-counts-evidence"))}; Ana's row ${row}; her answers ${stored.join(" ")}`);
        });

      // Ana's report waits on the lead's home with the claim's number, merged once.
      const claim = JSON.parse(cli(["claims", project, "--filter", reportedClaim, "--json"])).lines.find((l) => l.text === reportedClaim);
      assert.ok(claim, `the reported claim ${reportedClaim} is listed`);
      await session.keys(Key.Escape);
      await session.until("the report on the lead's home", async () =>
        /says two things/.test(await session.execute("return document.querySelector('[data-testid=problem-reports]')?.textContent ?? ''")) ? true : null,
      );
      const heads = await session.execute("return [...document.querySelectorAll('[data-testid=problem-reports] .problem-head')].map((e) => e.textContent)");
      assert.equal(heads.length, 1, `one report: ${heads.join(" | ")}`);
      assert.ok(heads[0].startsWith(`#${claim.id} · Evidence · ana, `), heads[0]);
    });

    assert.equal(digest(results), returned, "the merges changed the results file");
    for (const side of ["-wal", "-shm", "-journal"]) assert.ok(!existsSync(results + side), `${results}${side} was left`);

    const listed = JSON.parse(cli(["packs", project, "--json"]));
    assert.deepEqual(
      listed.map((p) => [p.annotator, p.state, p.merged]),
      [["ana", "returned", 2]],
    );
    const agreement = JSON.parse(cli(["agreement", project, "--kind", "evidence", "--json", "--bootstrap", "0"]));
    t.diagnostic(`evidence agreement after the merge: ${JSON.stringify(agreement.metrics?.setsel_pooled_fleiss_kappa)}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
