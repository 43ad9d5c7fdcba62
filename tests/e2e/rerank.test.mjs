// End to end, ranking a project in use again from the app (issue 35): the lead's settings
// screen starts "Re-rank candidates" on a project of 2,000 claims, the panel shows claims
// done of the total with the rate and the time left while an annotator goes on answering
// from the command line, and the ranking ends with the answered claims' candidates and
// every answer as they were; a second ranking, cancelled, changes no candidate. The app
// paces each progress report (a test hook) so the ranking lasts long enough to watch.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cli } from "./harness.mjs";
import { inApp, look } from "./screens.mjs";
import { importedProject, nextByCli, signInByKeys, submitByCli, TRICK, textOf, tid } from "./steps.mjs";

const CLAIMS = 2000;

/** 2,000 claims, each with a document of its own; maria leads, ana has answered three. */
function projectInUse(project, work) {
  const claims = [];
  const docs = [];
  for (let i = 0; i < CLAIMS; i += 1) {
    const sentences = Array.from({ length: 6 }, (_, s) => `Harbour ${i} saw ship ${s} arrive in ${1800 + ((i + s) % 200)}.`);
    docs.push({ id: `d${i}`, text: sentences.join(" ") });
    claims.push({ id: `c${i}`, claim: `A ship reached harbour ${i} in ${1800 + (i % 200)}.`, doc_ids: [`d${i}`] });
  }
  importedProject(project, work, claims, docs);
  cli(["annotators", project, "add", "maria", "--role", "lead"]);
  cli(["annotators", project, "add", "ana"]);
  cli(["tasks", project, "--kind", "evidence", "--overlap", "1"]);
  for (let i = 0; i < 3; i += 1) answerOne(project);
}

/** Ana answers her next evidence item with its first real option. */
function answerOne(project) {
  const item = nextByCli(project, "ana");
  assert.ok(item, "ana has an item");
  const real = item.options.find((o) => !o.text.startsWith(TRICK));
  submitByCli(project, "ana", [{ task_id: item.task_id, selected: [real.id], duration_ms: 8000 }]);
}

const candidates = (project, claim) => JSON.parse(cli(["candidates", project, "--claim", claim, "--json"])).map((c) => [c.sentence_id, c.rank]);

/** Every answer ever given, as the raw export writes them. */
function answers(project, work) {
  const out = join(work, "answers.jsonl");
  cli(["answers", project, "--out", out, "--force"]);
  return readFileSync(out, "utf8").trim().split("\n").filter(Boolean);
}

/** The claim ids of the claims ana answered, from the raw export. */
function answeredClaims(project, work) {
  return [...new Set(answers(project, work).map((l) => JSON.parse(l).claim_id))];
}

async function openSettings(session) {
  await session.clickOn(tid("open-settings"));
  await session.waitFor(tid("settings-rerank"));
  await session.until("the ranking settings read", async () => ((await textOf(session, tid("rerank-settings"))).startsWith("BM25") ? true : null));
}

test("re-rank candidates from the settings: progress, annotation meanwhile, answers kept, a cancel changes nothing", async (t) => {
  await inApp(t, { make: projectInUse, env: { FACTDESK_TEST_RANK_PACE_MS: "150" }, file: "harbours.fdesk" }, async (session, { project, work }) => {
    const answered = answeredClaims(project, work);
    assert.equal(answered.length, 3);
    const keptBefore = answered.map((c) => candidates(project, c));
    const answersBefore = answers(project, work);
    // Other BM25 settings, so that the ranking has something to change.
    cli(["settings", project, "--set", "ranking.bm25_k1=0.9", "--set", "ranking.jaccard_stemming=true"]);

    await signInByKeys(session, "maria");
    await openSettings(session);
    assert.match(await textOf(session, tid("rerank-settings")), /BM25 k1 0\.9, b 0\.75; Jaccard over word stems\.$/);
    await session.clickOn(tid("rerank-start"));
    // Done of the total, then the rate and the time left once they can be measured.
    const line = await session.until("the rate and time left", async () => {
      const text = await textOf(session, tid("rerank-progress"));
      return /^[\d\u202f]+ of 1\u202f997 claims ranked · [\d.\u202f]+ claims\/s · about \d+ (s|min) left$/.test(text) ? text : null;
    });
    assert.ok(line);
    assert.equal(await session.execute("return document.querySelector('[data-testid=rerank-start]').disabled"), true, "one ranking at a time");
    // Annotation goes on while it runs.
    answerOne(project);
    await look(session, "light-settings-rerank", tid("settings-rerank"), { element: tid("settings-rerank") });
    const done = await session.until("the ranking's end", async () => ((await session.findAll(tid("rerank-done"))).length ? textOf(session, tid("rerank-done")) : null), 120_000);
    assert.match(done, /^Ranked [\d\u202f]+ claims again: [\d\u202f]+ candidates\. Kept the candidates of [34] claims people were shown, so their answers stand\.$/);
    assert.deepEqual(answered.map((c) => candidates(project, c)), keptBefore, "what ana was shown stays");
    const answersAfter = answers(project, work);
    assert.deepEqual(answersBefore.filter((a) => !answersAfter.includes(a)), [], "every answer stays as it was");
    assert.equal(answersAfter.length, answersBefore.length + 1, "the answer given meanwhile is there");

    // Again with other settings, cancelled: no candidate changes.
    cli(["settings", project, "--set", "ranking.bm25_k1=1.5"]);
    const sample = ["c100", "c1000", "c1999", ...answered];
    const sampleBefore = sample.map((c) => candidates(project, c));
    await session.clickOn(tid("rerank-start"));
    await session.until("progress", async () => (/ of [\d\u202f]+ claims ranked/.test(await textOf(session, tid("rerank-progress"))) ? true : null));
    await session.clickOn(tid("rerank-cancel"));
    const stopped = await session
      .until("the cancel", async () => ((await session.findAll(tid("rerank-stopped"))).length ? textOf(session, tid("rerank-stopped")) : null), 60_000)
      .catch(async (e) => {
        // Seen once in CI (session 35), not reproduced: say what the panel showed instead.
        const status = await session.execute("return document.querySelector('[data-testid=rerank-status]')?.textContent ?? null");
        throw new Error(`${e.message}; the ranking's panel said ${JSON.stringify(status)}`);
      });
    assert.equal(stopped, "Cancelled. No candidate was changed.");
    assert.deepEqual(sample.map((c) => candidates(project, c)), sampleBefore);
    assert.equal(await session.execute("return document.querySelector('[data-testid=rerank-start]').disabled"), false);
  });
});
