// End to end, the annotator's and the data side of a working day: S skips an item and
// releases it at once (another annotator gets it while the first works on); search hits
// are reached by the arrow keys and open a claim with Enter, where an annotator sees
// their own answer only and a lead sees everyone's with the candidates; the lead's list
// of claims; the adjudication queue with counted disagreements first, flagged-only items
// in their own group without keys, and a label item's evidence numbered from one. Each
// new screen is saved at 1024×640 in the light and the dark theme and checked with axe.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cli, demoProject, saveScreenshot, startApp } from "./harness.mjs";
import { assertAccessible, windowSize } from "./screens.mjs";
import { currentTask, diagnose, itemReady, nextByCli, signInByKeys, submitByCli, testIds, textOf, tid } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

const TRICK = "It is not true that";

/** Answers `count` evidence items as `name`, picking real sentence `pick(task)`. */
function evidence(project, name, count, pick = () => 0) {
  for (let i = 0; i < count; i += 1) {
    const item = nextByCli(project, name, "evidence");
    if (!item) return;
    const real = item.options.filter((o) => !o.text.startsWith(TRICK));
    submitByCli(project, name, [{ task_id: item.task_id, selected: [real[Math.min(pick(item.task_id), real.length - 1)].id], duration_ms: 8000 }]);
  }
}

/**
 * The demo with evidence and label tasks of overlap 2: ben and cara answer the first ten
 * evidence items (disagreeing on some); dan, careless, picks every sentence and the trick
 * on the next three (rejected: nobody counted answered them); cara answers one more, so
 * one place is left on it; ana and ben disagree on the first label item. Returns that
 * label item's claim.
 */
function deskProject(project) {
  demoProject(project);
  cli(["annotators", project, "add", "maria", "--role", "lead"]);
  for (const name of ["ana", "ben", "cara", "dan"]) cli(["annotators", project, "add", name]);
  cli(["tasks", project, "--kind", "evidence", "--overlap", "2"]);
  cli(["tasks", project, "--kind", "label", "--overlap", "2"]);
  evidence(project, "ben", 10);
  evidence(project, "cara", 10, (task) => (task % 3 === 1 ? 1 : 0));
  for (let i = 0; i < 3; i += 1) {
    const item = nextByCli(project, "dan", "evidence");
    submitByCli(project, "dan", [{ task_id: item.task_id, selected: item.options.map((o) => o.id), duration_ms: 900 }]);
  }
  evidence(project, "cara", 1);
  const label = nextByCli(project, "ana", "label");
  submitByCli(project, "ana", [{ task_id: label.task_id, label: "SUPPORTED", comment: "ana read the document", duration_ms: 6000 }]);
  const again = nextByCli(project, "ben", "label");
  assert.equal(again.task_id, label.task_id, "fill-first: ben gets the same label item");
  submitByCli(project, "ben", [{ task_id: label.task_id, label: "REFUTED", comment: "ben doubts it", duration_ms: 6000 }]);
  return label;
}

/** Searches for `claim` and opens its hit with the arrow keys and Enter. */
async function openClaimBySearch(session, claim) {
  await session.keys("/");
  await session.keys(`"${claim.replace(/"/g, "").replace(/\.$/, "")}"${Key.Enter}`);
  await session.waitFor(tid("search-count"));
  const said = await session.execute("return [document.querySelector('[data-testid=search-input]').value, document.querySelector('[data-testid=search-results]').textContent]");
  assert.ok((await session.findAll(tid("search-hit"))).length > 0, `no hits: ${JSON.stringify(said)}`);
  const hits = await session.execute(
    "return [...document.querySelectorAll('[data-testid=search-hit]')].map((h) => [h.querySelector('[data-testid=search-hit-kind]').textContent, h.querySelector('[data-testid=search-hit-text]').textContent])",
  );
  const at = hits.findIndex(([kind, text]) => kind === "Claim" && text === claim);
  assert.ok(at >= 0, `the claim among ${JSON.stringify(hits)}`);
  // The readable id of the import, not a hash.
  const id = await session.execute("return document.querySelectorAll('[data-testid=search-hit-id]')[arguments[0]].textContent", [at]);
  assert.match(id, /^demo-\d{3}$/);
  for (let i = 0; i <= at; i += 1) await session.keys(Key.ArrowDown);
  assert.equal(await session.execute("return document.activeElement.getAttribute('data-index')"), String(at));
  await session.keys(Key.Enter);
  await session.waitFor(tid("claim-task-label"), 20_000);
  assert.equal(await textOf(session, tid("claim-text")), claim);
  return id;
}

async function look(session, name) {
  await saveScreenshot(session, `compact/${name}.png`);
  await assertAccessible(session, name);
}

/** The queue: disagreements first, then the flagged-only items under their heading. */
async function checkQueue(session, prefix, label) {
  await session.click(await session.find(tid("open-adjudicate")));
  await session.waitFor(tid("adj-claim"), 20_000);
  const rows = await testIds(session, "[data-testid^='adj-row-'], [data-testid='adj-thin-heading']");
  const heading = rows.indexOf("adj-thin-heading");
  assert.ok(heading > 0, `disagreements before the thin items: ${rows.join(", ")}`);
  assert.ok(rows.length - heading - 1 >= 2, `flagged-only items in their own group: ${rows.join(", ")}`);
  // The first item is a counted disagreement: two counted answers with keys 1 and 2.
  const keys = await session.execute("return [...document.querySelectorAll('.adj-answer kbd')].map((k) => k.textContent)");
  assert.deepEqual(keys, ["1", "2"]);
  // A flagged-only item: no answer has a key (dan's is not counted), and 1 or 2 take nothing.
  await session.click(await session.find(tid(rows[heading + 1])));
  await session.waitFor(tid("adj-answer-dan"));
  assert.equal((await session.findAll(".adj-answer kbd")).length, 0);
  await session.keys("2");
  await session.keys("1");
  assert.equal((await session.findAll("[data-testid^='adj-decided-']")).length, 0, "nothing was decided");
  assert.equal(await textOf(session, tid("adj-notice")), "");
  // The label item shows its evidence, numbered from one, in order.
  await session.click(await session.find(tid(`adj-row-${label.task_id}`)));
  await session.waitFor(tid("adj-sentence-1"));
  const numbers = await session.execute("return [...document.querySelectorAll('.adj-sentence kbd')].map((k) => Number(k.textContent))");
  assert.deepEqual(numbers, numbers.map((_, i) => i + 1));
  assert.ok(numbers.length >= 2, JSON.stringify(numbers));
  const page = await session.execute("return document.querySelector('[data-testid=adjudicate]').textContent");
  assert.doesNotMatch(page, /sentence 0\b/);
  await look(session, `${prefix}-adjudicate-label`);
  await session.click(await session.find(tid(rows[heading + 1])));
  await session.waitFor(tid("adj-answer-dan"));
  await look(session, `${prefix}-adjudicate-thin`);
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
}

/** The lead's side: the claim with everyone's answers, the list of claims, the queue. */
async function leadSide(session, prefix, label) {
  await signInByKeys(session, "maria");
  await openClaimBySearch(session, label.claim);
  assert.equal((await session.findAll(`${tid("claim-task-label")} ${tid("claim-answer-ben")}`)).length, 1, "a lead sees every answer");
  assert.match(await textOf(session, `${tid("claim-task-label")} ${tid("claim-answer-ben")}`), /REFUTED/);
  await session.waitFor(tid("claim-candidates"));
  await look(session, `${prefix}-claim-lead`);
  // A candidate in its document, marked among its neighbours.
  await session.click(await session.find(tid("claim-show-1")));
  await session.waitFor(`${tid("claim-passage")} mark`);
  const first = await session.execute("return document.querySelector('[data-testid=claim-candidates] li span').textContent");
  assert.equal(await textOf(session, `${tid("claim-passage")} mark`), first);
  await session.execute("document.querySelector('[data-testid=claim-passage]').scrollIntoView({ block: 'end' })");
  await look(session, `${prefix}-claim-lead-document`);
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));

  await session.click(await session.find(tid("open-claims")));
  await session.waitFor(tid("claims-row-demo-001"));
  const all = await textOf(session, tid("claims-count"));
  assert.match(all, /^\d+ claims · /);
  await session.keys("f");
  await session.keys("lighthouse");
  await session.until("the filter applied", async () => /^\d+ claims?/.test(await textOf(session, tid("claims-count"))) && (await textOf(session, tid("claims-count"))) !== all);
  await session.keys(Key.Enter);
  await session.keys("j");
  await look(session, `${prefix}-claims`);
  const second = await session.execute("return document.querySelector('.claims-row.current .claims-id').textContent");
  await session.keys(Key.Enter);
  await session.waitFor(tid("claim-screen"));
  await session.until("the claim", async () => (await textOf(session, tid("claim-ext-id"))) === second);
  await session.keys(Key.Escape);
  await session.waitFor(tid("claims-screen"));
  assert.equal(await session.execute("return document.querySelector('[data-testid=claims-filter]').value"), "lighthouse", "the list is as it was left");
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
  await checkQueue(session, prefix, label);
}

test("Skip releases the item; search opens a claim (an annotator sees only their answer); claims list; the cleaned queue", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-"));
  const project = join(work, "demo.fdesk");
  let app;
  let session;
  try {
    const label = deskProject(project);
    app = await startApp(work, project);
    session = await app.open();
    await windowSize(session, 1024, 640);
    await signInByKeys(session, "ana");

    // Skip: the item has one place left, which ana holds; S gives it back at once.
    await session.keys("1");
    await session.waitFor(tid("option-1"));
    const held = await currentTask(session);
    await session.keys("s");
    await session.waitFor(tid("skipped"));
    const next = await currentTask(session);
    assert.notEqual(next, held, "the skipped item is not served again at once");
    const bens = nextByCli(project, "ben", "evidence");
    assert.equal(bens?.task_id, held, "ben gets the released item straight away");
    await itemReady(session);
    await look(session, "light-evidence-skipped");
    await session.execute("document.activeElement && document.activeElement.blur()");
    await session.keys(Key.Escape);
    await session.waitFor(tid("home"));

    // Search, arrow keys and Enter open the claim; ana sees her own answer only.
    await openClaimBySearch(session, label.claim);
    const body = await session.execute("return document.querySelector('[data-testid=claim-screen]').textContent");
    assert.equal((await session.findAll(tid("claim-answer-ben"))).length, 0, "ben's answer is not shown to ana");
    for (const secret of ["REFUTED", "ben doubts it"]) assert.ok(!body.includes(secret), `${secret} shown to ana: ${body}`);
    assert.equal((await session.findAll(tid("claim-candidates"))).length, 0, "no candidates for an annotator");
    assert.match(await textOf(session, tid("claim-answer-ana")), /SUPPORTED/);
    await look(session, "light-claim-annotator");
    await session.keys(Key.Escape);
    await session.waitFor(tid("home"));
    await session.click(await session.find(tid("switch-person")));

    await leadSide(session, "light", label);
  } catch (e) {
    await diagnose(t, app, session);
    throw e;
  } finally {
    await session?.delete().catch(() => {});
    await app?.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test("the data side in the dark theme at 1024×640", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-"));
  const project = join(work, "demo.fdesk");
  let app;
  let session;
  try {
    const label = deskProject(project);
    app = await startApp(work, project, { GTK_THEME: "Adwaita:dark" });
    session = await app.open();
    await windowSize(session, 1024, 640);
    assert.equal(await session.execute("return matchMedia('(prefers-color-scheme: dark)').matches"), true, "the system is dark");
    await signInByKeys(session, "ana");
    await openClaimBySearch(session, label.claim);
    await look(session, "dark-claim-annotator");
    await session.keys(Key.Escape);
    await session.waitFor(tid("home"));
    await session.click(await session.find(tid("switch-person")));
    await leadSide(session, "dark", label);
  } catch (e) {
    await diagnose(t, app, session);
    throw e;
  } finally {
    await session?.delete().catch(() => {});
    await app?.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
