// End to end: three annotators select evidence through `factdesk submit` and disagree on
// a few; the lead opens the adjudication queue in the app, takes one annotator's answer by
// key with a reason, exports the gold file from the app, and the exported line of that
// claim shows the decision's provenance (who, whose answer, why), and the raw answers
// written from the same screen equal the CLI's; then decides another item by hand and
// undoes it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { atTop, cli, demoProject, saveScreenshot } from "./harness.mjs";
import { assertAnswersReadable, inApp } from "./screens.mjs";
import { nextByCli, signInByKeys, submitByCli, textOf, tid, wholeTextOf } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

const PEOPLE = ["ana", "ben", "cara"];
const COMMENTS = {
  ana: "The first sentence gives the date outright.",
  ben: "Only this sentence names the year it was lit.",
  cara: "None of these says when it was first lit.",
};

/** What `who` (0-2) selects on an evidence item: most agree, every third item no one does. */
function answerOf(item, who) {
  const real = item.options.filter((o) => !o.text.startsWith("It is not true that"));
  if (item.task_id % 3 === 1) {
    // Three different answers: the lead has to settle it.
    if (who === 2 || real.length < 2) return who === 0 ? { selected: [real[0].id] } : { no_evidence: true, selected: [] };
    return { selected: [real[who].id] };
  }
  return { selected: [real[0].id] };
}

/** The demo with lea as its lead and three annotators who disagree; returns the queue. */
function queueProject(project) {
  demoProject(project);
  cli(["annotators", project, "add", "lea", "--role", "lead"]);
  for (const name of PEOPLE) cli(["annotators", project, "add", name]);
  cli(["tasks", project, "--kind", "evidence", "--overlap", "3"]);
  for (const [who, name] of PEOPLE.entries()) {
    for (let i = 0; i < 40; i += 1) {
      const item = nextByCli(project, name, "evidence");
      if (!item) break;
      const comment = item.task_id % 3 === 1 ? COMMENTS[name] : null;
      submitByCli(project, name, [{ task_id: item.task_id, ...answerOf(item, who), comment, duration_ms: 9000 }]);
    }
  }
  const queued = JSON.parse(cli(["adjudicate", project, "--as", "lea", "--list", "--json"]));
  assert.ok(queued.length >= 2, `disagreements queued: ${queued.length}`);
  return queued;
}

test("the lead resolves a disagreement in the app and the export shows who decided and why", async (t) => {
  await inApp(t, { make: queueProject, size: null }, async (session, { project, work, made: queued }) => {
    const out = join(work, "gold.jsonl");
    await signInByKeys(session, "lea");
    await session.clickOn(tid("open-adjudicate"));
    await session.waitFor(tid("adj-claim"), 20_000);

    // The first item is one the annotators disagree on most: three different answers.
    const first = queued[0];
    assert.equal(first.outcome.outcome, "no_gold_evidence");
    const shownTask = async () => session.attribute(await session.find(tid("adj-task")), "data-task");
    assert.equal(await shownTask(), String(first.task_id));
    assert.equal(await textOf(session, tid("adj-claim")), first.claim);
    assert.equal(first.answers.length, 3, JSON.stringify(first.answers));
    // Each card shows what its answer chose: the sentence's text, not only its number.
    for (const a of first.answers) {
      const shown = await session.execute("return document.querySelector(arguments[0]).textContent", [tid(`adj-value-${a.annotator}`)]);
      if (a.answer.no_evidence) {
        assert.equal(shown, "No evidence", a.annotator);
        continue;
      }
      for (const id of a.answer.selected) {
        const at = first.candidates.findIndex((c) => c.sentence_id === id);
        assert.ok(at >= 0, `${a.annotator} chose a sentence that is no candidate`);
        assert.ok(shown.includes(`${at + 1}`) && shown.includes(first.candidates[at].text.slice(0, 30)), `${a.annotator}: ${shown}`);
      }
    }
    const takenFrom = first.answers[1].annotator;
    const reason = `${takenFrom} checked the primary source`;

    // C writes the reason, Enter goes back to the keys, G then 3 names the category (the
    // project's third: "guideline gap"), 2 takes the second answer.
    await session.keys("c");
    await session.keys(reason);
    await session.keys(Key.Enter);
    await session.keys("g");
    await session.until("the categories by number", async () =>
      /3 guideline gap/.test(await textOf(session, tid("adj-category-hint"))) ? true : null,
    );
    await saveScreenshot(session, "adjudicate-category.png");
    await session.keys("3");
    await session.keys("2");
    await session.waitFor(tid(`adj-decided-${first.task_id}`));
    assert.match(await wholeTextOf(session, tid("adj-notice")), new RegExp(`lea took ${takenFrom}'s answer`));
    // The next item came; K goes back to the decided one, which shows who, when and why.
    assert.notEqual(await shownTask(), String(first.task_id));
    await session.keys("k");
    await session.until("the decided item", async () =>
      (await shownTask()) === String(first.task_id) ? true : null,
    );
    const decision = await wholeTextOf(session, tid("adj-decision"));
    assert.match(decision, new RegExp(`^lea took ${takenFrom}'s answer`));
    assert.ok(decision.includes(reason), decision);
    assert.ok(decision.includes("(guideline gap)"), decision);
    await saveScreenshot(session, "adjudicate.png");
    await assertAnswersReadable(session, "the decided item");

    // The CLI sees the same decision.
    const after = JSON.parse(cli(["adjudicate", project, "--as", "lea", "--list", "--json"]));
    const decided = after.find((i) => i.task_id === first.task_id);
    assert.equal(decided.decision.taken_from, takenFrom);
    assert.equal(decided.decision.category, "guideline gap");

    // D then a number shows that sentence in its document; Esc closes it.
    await session.keys("d");
    await session.keys("1");
    const sentence = await textOf(session, `${tid("adj-sentence-1")} .adj-sentence-text`);
    const hit = await session.until("the sentence in its document", () =>
      session.execute("const m = document.querySelector('[data-testid=passage-hit]'); return m && m.textContent"),
    );
    assert.equal(hit, sentence);
    assert.ok((await textOf(session, tid("passage"))).length > sentence.length + 40, "with its neighbours");
    await session.keys(Key.Escape);
    await session.until("the passage closed", async () => ((await session.findAll(tid("passage"))).length ? null : true));

    // E goes to the export: the preview, then the file where the field says.
    await session.keys("e");
    await session.waitFor(tid("export-lines"), 20_000);
    assert.match(await session.attribute(await session.find(tid("export-out")), "value"), /demo\.gold\.jsonl$/);
    const typeOut = (path) =>
      session.execute(
        "const f = document.querySelector('[data-testid=export-out]'); f.value = arguments[0]; f.dispatchEvent(new Event('input'));",
        [path],
      );
    // A folder that does not exist: said under the field, about the file typed (never a
    // temporary file the lead did not name), and gone after the export that works.
    const nowhere = join(work, "no-such-folder", "gold.jsonl");
    await typeOut(nowhere);
    await session.clickOn(tid("export-write"));
    await session.until("the refusal under the field", async () => ((await textOf(session, tid("export-out-problem"))).length > 0 ? true : null));
    const refusal = await textOf(session, tid("export-out-problem"));
    assert.ok(refusal.includes(nowhere) && !refusal.includes(".partial"), refusal);
    assert.equal((await session.findAll(tid("error"))).length, 0, "no banner at the top");
    await typeOut(out);
    await session.clickOn(tid("export-write"));
    await session.waitFor(tid("export-done"), 20_000);
    assert.equal(await textOf(session, tid("export-out-problem")), "", "the old refusal is gone");
    assert.equal(await textOf(session, tid("export-written")), out);
    assert.match(await textOf(session, tid("export-card")), /gold\.card\.md$/);
    // The whole window from its top, app bar and all, not wherever typing the file's name left it.
    await atTop(session);
    await saveScreenshot(session, "export.png");

    const lines = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const line = lines.find((l) => l.id === first.claim_id);
    assert.ok(line, `claim ${first.claim_id} is exported`);
    // The gold evidence is the sentence the taken answer selected.
    const chosen = first.candidates.find((c) => c.sentence_id === first.answers[1].answer.selected[0]);
    assert.deepEqual(line.evidence, [{ document_id: chosen.document_id, sentence_index: chosen.sentence_index, text: chosen.text }]);
    assert.equal(line.provenance.method, "lead-decision");
    assert.equal(line.provenance.lead, "lea");
    assert.equal(line.provenance.taken_from, takenFrom);
    assert.equal(line.provenance.reason, reason);
    // Lines the lead did not touch say how their label was reached.
    assert.ok(lines.some((l) => l.provenance.method === "majority"));

    // The raw answers from the same screen, as CSV: the same file the CLI writes.
    const answersOut = join(work, "answers.csv");
    await session.execute(
      "const f = document.querySelector('[data-testid=answers-format]'); f.value = 'csv'; f.dispatchEvent(new Event('change'));" +
        "const o = document.querySelector('[data-testid=answers-out]'); o.value = arguments[0]; o.dispatchEvent(new Event('input'));",
      [answersOut],
    );
    await session.clickOn(tid("answers-write"));
    await session.waitFor(tid("answers-done"), 20_000);
    assert.equal(await textOf(session, tid("answers-written")), answersOut);
    const byCli = join(work, "answers-cli.csv");
    cli(["answers", project, "--out", byCli]);
    assert.equal(readFileSync(answersOut, "utf8"), readFileSync(byCli, "utf8"));
    assert.match(readFileSync(answersOut, "utf8"), /^answer_id,answer_uuid,task_id,task_kind,/);

    // Back in the queue: H decides another item by hand (1 toggles the first sentence,
    // Enter saves), and U undoes that decision.
    await session.clickOn(tid("export-adjudicate"));
    const second = queued[1];
    await session.click(await session.waitFor(tid(`adj-row-${second.task_id}`), 20_000));
    await session.keys("h");
    await session.waitFor(`${tid("adj-sentence-1")}`);
    await session.keys("1");
    await session.waitFor(`.adj-sentence.on${tid("adj-sentence-1")}`);
    await session.keys(Key.Enter);
    await session.waitFor(tid(`adj-decided-${second.task_id}`));
    await session.clickOn(tid(`adj-row-${second.task_id}`));
    assert.match(await wholeTextOf(session, tid("adj-decision")), /^lea set sentence 1 on /);
    await session.keys("u");
    await session.until("the decision undone", async () =>
      (await session.findAll(tid(`adj-decided-${second.task_id}`))).length === 0 ? true : null,
    );
    const undone = JSON.parse(cli(["adjudicate", project, "--as", "lea", "--list", "--json"]));
    assert.equal(undone.find((i) => i.task_id === second.task_id).decision, null);
    assert.equal(undone.find((i) => i.task_id === first.task_id).decision.taken_from, takenFrom);

    // Another window (here the CLI) decides the item on screen meanwhile: the stale queue's
    // key is refused, said, and the queue read again; the other decision stands.
    const counted = second.answers.filter((a) => a.counted);
    cli(["adjudicate", project, "--as", "lea", "--decide", String(second.task_id), "--take", counted[1].annotator, "--reason", "from the CLI"]);
    await session.keys("1");
    await session.until("the conflict said", async () => /decided meanwhile/.test(await wholeTextOf(session, tid("adj-notice"))) ? true : null);
    await session.waitFor(tid(`adj-decided-${second.task_id}`));
    const stands = JSON.parse(cli(["adjudicate", project, "--as", "lea", "--list", "--json"])).find((i) => i.task_id === second.task_id);
    assert.equal(stands.decision.taken_from, counted[1].annotator);
    assert.equal(stands.decision.reason, "from the CLI");
  });
});
