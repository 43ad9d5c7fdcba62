// End to end, the annotator's and the data side of a working day: S skips an item and
// releases it at once (another annotator gets it while the first works on); search hits
// are reached by the arrow keys and open a claim with Enter, where an annotator sees
// their own answer only and a lead sees everyone's with the candidates; the lead's list
// of claims; the adjudication queue with counted disagreements first, flagged-only items
// in their own group without keys, and a label item's evidence numbered from one. Each
// new screen is saved at 1024×640 in the light and the dark theme and checked with axe.

import assert from "node:assert/strict";
import { test } from "node:test";
import { cli } from "./harness.mjs";
import { assertAnswersReadable, assertFits, inApp, look, rectOf } from "./screens.mjs";
import { answerEvidence, carelessAnswers, currentTask, itemReady, nextByCli, signInByKeys, submitByCli, teamProject, testIds, textOf, tid } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

/**
 * The demo with evidence and label tasks of overlap 2: ben and cara answer the first ten
 * evidence items (disagreeing on some); dan, careless, picks every sentence and the trick
 * on the next three (rejected: nobody counted answered them); cara answers one more, so
 * one place is left on it; ana and ben disagree on the first label item. Returns that
 * label item's claim.
 */
function deskProject(project) {
  teamProject(project, ["ana", "ben", "cara", "dan"]);
  cli(["tasks", project, "--kind", "evidence", "--overlap", "2"]);
  cli(["tasks", project, "--kind", "label", "--overlap", "2"]);
  answerEvidence(project, "ben", 10);
  answerEvidence(project, "cara", 10, (task) => (task % 3 === 1 ? 1 : 0));
  carelessAnswers(project);
  answerEvidence(project, "cara", 1);
  const label = nextByCli(project, "ana", "label");
  submitByCli(project, "ana", [{ task_id: label.task_id, label: "SUPPORTED", comment: "ana read the document", duration_ms: 6000 }]);
  const again = nextByCli(project, "ben", "label");
  assert.equal(again.task_id, label.task_id, "fill-first: ben gets the same label item");
  submitByCli(project, "ben", [{ task_id: label.task_id, label: "REFUTED", comment: "ben doubts it", duration_ms: 6000 }]);
  return label;
}

/** Searches for `claim` and opens its hit with the arrow keys and Enter, as the lead or an annotator. */
async function openClaimBySearch(session, claim, { lead = false } = {}) {
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
  // A lead sees the claim's number in the project and the import's own id as provenance;
  // an annotator sees neither: a number follows import order (a refutation comes after
  // its original) and an imported id would tell a refutation ("…/refuted") or a model's
  // counter-claim from an original. Their own opaque reference names the claim instead.
  const [number, id] = await session.execute(
    "const h = document.querySelectorAll('[data-testid=search-hit]')[arguments[0]]; return [h.querySelector('[data-testid=search-hit-number]').textContent, h.querySelector('[data-testid=search-hit-id]').textContent]",
    [at],
  );
  assert.match(number, lead ? /^#\d+$/ : /^c[0-9a-f]{12}$/);
  if (lead) assert.match(id, /^demo-\d{3}$/);
  else assert.equal(id, "");
  for (let i = 0; i <= at; i += 1) await session.keys(Key.ArrowDown);
  assert.equal(await session.execute("return document.activeElement.getAttribute('data-index')"), String(at));
  await session.keys(Key.Enter);
  await session.waitFor(tid("claim-task-label"), 20_000);
  assert.equal(await textOf(session, tid("claim-text")), claim);
  // A lead's page is titled by the number; an annotator's keeps the reference unshown.
  if (lead) assert.equal(await textOf(session, tid("claim-number")), number);
  else assert.equal(await session.attribute(await session.find(tid("claim-number")), "data-reference"), number);
  assert.equal(await textOf(session, tid("claim-ext-id")), lead ? `imported as ${id}` : "");
  return id;
}

/**
 * Skip: the first evidence item has one place left, which ana holds; S gives it back at
 * once, and ben gets it straight away. Ends on home.
 */
async function skipFirst(session, project, prefix) {
  await session.keys("1");
  await session.waitFor(tid("option-1"));
  const held = await currentTask(session);
  const heldClaim = await textOf(session, tid("item-claim"));
  await session.keys("s");
  await session.waitFor(tid("skipped"));
  const next = await currentTask(session);
  assert.notEqual(next, held, "the skipped item is not served again at once");
  // Ana's items carry ids of her own, ben's (the command line's) the tasks' numbers: the
  // item is known by its claim.
  const bens = nextByCli(project, "ben", "evidence");
  assert.equal(bens?.claim, heldClaim, "ben gets the released item straight away");
  await itemReady(session);
  // The skip's note takes no room from the item: every candidate and "no evidence" whole above the bar.
  await assertFits(session, `${prefix}, with the skip's note`, 1);
  await look(session, `${prefix}-evidence-skipped`);
  await session.execute("document.activeElement && document.activeElement.blur()");
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
}

/** Search "#N" puts claim N first; Enter opens it. */
async function openClaimByNumber(session, number) {
  await session.keys("/");
  await session.keys(`${number}${Key.Enter}`);
  await session.waitFor(tid("search-hit-number"));
  assert.equal(await textOf(session, tid("search-hit-number")), number, "the claim named by its number comes first");
  await session.keys(Key.ArrowDown);
  await session.keys(Key.Enter);
  await session.waitFor(tid("claim-screen"));
  await session.until(`claim ${number}`, async () => (await textOf(session, tid("claim-number"))) === number);
  await session.waitFor(tid("claim-text"));
}

/**
 * Issue 36: the category select with none chosen reads as a field in use, not a disabled
 * grey button: the reason field's background, height and row beside it, its text no
 * fainter than the muted ink, every select on the screen drawn without WebKitGTK's look.
 */
async function assertCategoryLooksLive(session) {
  const select = await rectOf(session, tid("adj-category"));
  const reason = await rectOf(session, tid("adj-reason"));
  assert.ok(select && reason, "the category select and the reason field");
  assert.ok(Math.abs(select.height - reason.height) <= 2 && Math.abs(select.top - reason.top) <= 2, `one row of one height: ${JSON.stringify({ select, reason })}`);
  assert.ok(select.right <= reason.left && select.bottom <= select.vh, `the select beside the reason, in view: ${JSON.stringify({ select, reason })}`);
  const [selectBg, reasonBg, appearance, ink, muted] = await session.execute(
    `const s = getComputedStyle(document.querySelector(arguments[0]));
     const r = getComputedStyle(document.querySelector(arguments[1]));
     const probe = document.createElement("span"); probe.style.color = "var(--muted)"; document.body.append(probe);
     const muted = getComputedStyle(probe).color; probe.remove();
     return [s.backgroundColor, r.backgroundColor, s.webkitAppearance || s.appearance, s.color, muted];`,
    [tid("adj-category"), tid("adj-reason")],
  );
  assert.equal(selectBg, reasonBg, "the empty select has the reason field's background");
  assert.equal(appearance, "none", "drawn by the app, not as WebKitGTK's grey button");
  assert.equal(ink, muted, "its text in the muted ink, not the faint one");
}

/** The queue: disagreements first, then the flagged-only items under their heading. */
async function checkQueue(session, prefix, label) {
  await session.clickOn(tid("open-adjudicate"));
  await session.waitFor(tid("adj-claim"), 20_000);
  const rows = await testIds(session, "[data-testid^='adj-row-'], [data-testid='adj-thin-heading']");
  const heading = rows.indexOf("adj-thin-heading");
  assert.ok(heading > 0, `disagreements before the thin items: ${rows.join(", ")}`);
  assert.ok(rows.length - heading - 1 >= 2, `flagged-only items in their own group: ${rows.join(", ")}`);
  // The first item is a counted disagreement: two counted answers with keys 1 and 2.
  const keys = await session.execute("return [...document.querySelectorAll('.adj-answer kbd')].map((k) => k.textContent)");
  assert.deepEqual(keys, ["1", "2"]);
  await assertCategoryLooksLive(session);
  // A flagged-only item: no answer has a key (dan's is not counted), and 1 or 2 take nothing.
  await session.clickOn(tid(rows[heading + 1]));
  await session.waitFor(tid("adj-answer-dan"));
  assert.equal((await session.findAll(".adj-answer kbd")).length, 0);
  await session.keys("2");
  await session.keys("1");
  assert.equal((await session.findAll("[data-testid^='adj-decided-']")).length, 0, "nothing was decided");
  assert.equal(await textOf(session, tid("adj-notice")), "");
  // The label item shows its evidence, numbered from one, in order. One click, as a
  // person would: the queue is drawn again only by what the lead does (a click, a key, a
  // decision), so nothing redraws it under this click. The item before is replaced in the
  // click's own handler; the numbers are read once the detail shows the label item's
  // claim. A claim imported with its evidence inline has that one sentence as its only
  // candidate (demo-028), so one numbered sentence is enough.
  await session.clickOn(tid(`adj-row-${label.task_id}`));
  const numbers = await session
    .until("the label item's numbered evidence", async () => {
      const [claim, shown] = await session.execute(
        "return [document.querySelector('[data-testid=adj-claim]')?.textContent, [...document.querySelectorAll('.adj-sentence .adj-num')].map((k) => Number(k.textContent))]",
      );
      return claim === label.claim && shown.length >= 1 ? shown : null;
    }, 10_000)
    .catch(async (e) => {
      const held = await session.execute(
        "return [...document.querySelectorAll('[data-testid^=adj-row-]')].map((r) => r.dataset.testid + (r.classList.contains('current') ? '*' : '')).join(' ') + ' | ' + (document.querySelector('.adj-docs')?.textContent ?? 'no .adj-docs')",
      );
      throw new Error(`${e.message}; label task ${label.task_id}; rows (current *) and evidence: ${held}`);
    });
  assert.deepEqual(numbers, numbers.map((_, i) => i + 1));
  const page = await session.execute("return document.querySelector('[data-testid=adjudicate]').textContent");
  assert.doesNotMatch(page, /sentence 0\b/);
  await look(session, `${prefix}-adjudicate-label`);
  await session.clickOn(tid(rows[heading + 1]));
  await session.waitFor(tid("adj-answer-dan"));
  await look(session, `${prefix}-adjudicate-thin`);
  await assertAnswersReadable(session, `${prefix}, a flagged-only item`);
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
}

/** The lead's side: the claim with everyone's answers, the list of claims, the queue. */
async function leadSide(session, prefix, label) {
  await signInByKeys(session, "maria");
  await openClaimBySearch(session, label.claim, { lead: true });
  assert.equal((await session.findAll(`${tid("claim-task-label")} ${tid("claim-answer-ben")}`)).length, 1, "a lead sees every answer");
  assert.match(await textOf(session, `${tid("claim-task-label")} ${tid("claim-answer-ben")}`), /REFUTED/);
  await session.waitFor(tid("claim-candidates"));
  await look(session, `${prefix}-claim-lead`);
  // A candidate in its document, marked among its neighbours.
  await session.clickOn(tid("claim-show-1"));
  await session.waitFor(`${tid("claim-passage")} mark`);
  const first = await session.execute("return document.querySelector('[data-testid=claim-candidates] li span').textContent");
  assert.equal(await textOf(session, `${tid("claim-passage")} mark`), first);
  // The passage alone, under its heading ("Candidate 1 in its document").
  await look(session, `${prefix}-claim-lead-document`, `${tid("claim-passage")} h2`, { element: tid("claim-passage") });
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));

  await session.clickOn(tid("open-claims"));
  await session.waitFor(tid("claims-row-demo-001"));
  const all = await textOf(session, tid("claims-count"));
  assert.match(all, /^\d+ claims · /);
  await session.keys("f");
  await session.keys("lighthouse");
  await session.until("the filter applied", async () => /^\d+ claims?/.test(await textOf(session, tid("claims-count"))) && (await textOf(session, tid("claims-count"))) !== all);
  await session.keys(Key.Enter);
  await session.keys("j");
  await look(session, `${prefix}-claims`);
  const [second, secondId] = await session.execute(
    "const r = document.querySelector('.claims-row.current'); return [r.querySelector('.claims-number').textContent, r.querySelector('.claims-id').textContent]",
  );
  assert.match(second, /^#\d+$/);
  await session.keys(Key.Enter);
  await session.waitFor(tid("claim-screen"));
  await session.until("the claim", async () => (await textOf(session, tid("claim-ext-id"))) === `imported as ${secondId}`);
  assert.equal(await textOf(session, tid("claim-number")), second);
  await session.keys(Key.Escape);
  await session.waitFor(tid("claims-screen"));
  assert.equal(await session.execute("return document.querySelector('[data-testid=claims-filter]').value"), "lighthouse", "the list is as it was left");
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
  await openClaimByNumber(session, second);
  assert.equal(await textOf(session, tid("claim-ext-id")), `imported as ${secondId}`);
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
  await checkQueue(session, prefix, label);
}

test("Skip releases the item; search opens a claim (an annotator sees only their answer); claims list; the cleaned queue", async (t) => {
  await inApp(t, { make: deskProject }, async (session, { project, made: label }) => {
    await signInByKeys(session, "ana");

    await skipFirst(session, project, "light");

    // "!" reports a problem: the item goes back to the pool, the lead reads the note.
    await session.keys("1");
    await session.waitFor(tid("option-1"));
    await itemReady(session);
    const reported = await textOf(session, tid("item-claim"));
    await session.keys("!");
    await session.waitFor(tid("report-text"));
    // Enter is a new line in the note, not a send; Ctrl+Enter sends.
    await session.keys(`The sentences are cut off mid-word.${Key.Enter}Sentences 2 and 4.`);
    await session.afterPaint();
    assert.equal(
      await session.execute("return document.querySelector('[data-testid=report-text]').value"),
      "The sentences are cut off mid-word.\nSentences 2 and 4.",
    );
    assert.equal((await session.findAll(tid("reported"))).length, 0, "Enter sent nothing");
    await look(session, "light-report");
    // The dialog ends at its buttons, its padding under them as above its heading.
    const dialog = await rectOf(session, tid("report-dialog"));
    const sendButton = await rectOf(session, tid("report-send"));
    assert.ok(dialog.bottom - sendButton.bottom <= 32, `a blank band under the buttons: ${JSON.stringify({ dialog, sendButton })}`);
    await session.chord(Key.Control, Key.Enter);
    await session.waitFor(tid("reported"));
    assert.notEqual(await textOf(session, tid("item-claim")), reported, "the next item shows");
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
    await session.clickOn(tid("switch-person"));
    await signInByKeys(session, "maria");
    await session.until("the report on the lead's home", async () => /cut off mid-word/.test(await textOf(session, tid("problem-reports"))) ? true : null);
    const reports = await textOf(session, tid("problem-reports"));
    assert.ok(reports.includes("ana, ") && reports.includes(reported.slice(0, 20)), reports);
    await session.clickOn("[data-testid^='problem-seen-']");
    await session.until("the report marked seen", async () => (await session.execute("return document.querySelector('[data-testid=problem-reports]').hidden")) === true);
    await session.clickOn(tid("switch-person"));

    await leadSide(session, "light", label);
  });
});

test("the data side in the dark theme at 1024×640", async (t) => {
  await inApp(t, { make: deskProject, env: { GTK_THEME: "Adwaita:dark" } }, async (session, { project, made: label }) => {
    assert.equal(await session.execute("return matchMedia('(prefers-color-scheme: dark)').matches"), true, "the system is dark");
    await signInByKeys(session, "ana");
    await skipFirst(session, project, "dark");
    await openClaimBySearch(session, label.claim);
    await look(session, "dark-claim-annotator");
    await session.keys(Key.Escape);
    await session.waitFor(tid("home"));
    await session.clickOn(tid("switch-person"));
    await leadSide(session, "dark", label);
  });
});
