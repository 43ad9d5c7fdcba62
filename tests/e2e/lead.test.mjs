// End to end, everything a lead does in the app: refutation review (accept and reject by
// key, with a note), flag decisions on a careless annotator, project settings (a refusal
// shown under its own field, a save that keeps what the screen does not edit), issuing a
// pack, and merging an unanswered pack, which asks first. Each screen is saved at 1024×640
// in the light and the dark theme and checked with axe-core in the app's webview.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { atTop, cli } from "./harness.mjs";
import { assertInView, inApp, look, rectOf, windowSize } from "./screens.mjs";
import { carelessAnswers, nextByCli, signInByKeys, submitByCli, teamProject, textOf, tid } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

/** Words a writer would change to make a demo claim false. */
const SWAPS = [["five", "two"], ["fewer", "more"], ["More", "Fewer"], ["rose", "fell"], ["beneath", "above"], ["Paris", "Lyon"], ["open", "closed"], ["falling", "rising"], ["directly", "partly"], ["near", "far from"], ["rack", "cable"]];

/** A refutation that passes the live checks: a year moved on, or one fact changed. */
function refutationOf(claim) {
  const year = /\b(1[89]\d\d|20\d\d)\b/.exec(claim);
  if (year) return claim.replace(year[0], String(Number(year[0]) + 7));
  const swap = SWAPS.find(([from]) => new RegExp(`\\b${from}\\b`).test(claim));
  return swap ? claim.replace(new RegExp(`\\b${swap[0]}\\b`), swap[1]) : claim.replace(/\b(\w+)\.$/, "Lisbon.");
}

/** The demo project with a lead, three annotators, a careless one (flagged), and three
 * refutations Ana wrote, waiting for review. */
function leadProject(project) {
  teamProject(project, ["ana", "ben", "dan"]);
  cli(["tasks", project, "--kind", "evidence", "--overlap", "3"]);
  cli(["tasks", project, "--kind", "refute"]);
  carelessAnswers(project);
  for (let i = 0; i < 3; i += 1) {
    const item = nextByCli(project, "ana", "refute");
    submitByCli(project, "ana", [{ task_id: item.task_id, text: refutationOf(item.claim), duration_ms: 20_000 }]);
  }
}

const pending = (project) => JSON.parse(cli(["review", project, "--json"]));
const person = (project, name) => JSON.parse(cli(["annotators", project, "list", "--json"])).find((a) => a.name === name);
const settings = (project) => JSON.parse(cli(["settings", project]));
const packs = (project) => JSON.parse(cli(["packs", project, "--json"]));

/** Replaces the text of a field the way a person would: select it all, type anew. */
async function fill(session, css, text) {
  await session.execute("const e = document.querySelector(arguments[0]); e.value = ''; e.focus();", [css]);
  await session.sendKeys(await session.find(css), text);
}

/** The element at `below` starts under `above` and overlaps it horizontally: next to it. */
async function assertUnder(session, above, below, what) {
  const [a, b] = [await rectOf(session, above), await rectOf(session, below)];
  assert.ok(a && b, `${what}: missing`);
  assert.ok(b.top >= a.bottom - 1 && b.top - a.bottom < 60 && b.left < a.right && b.right > a.left, `${what}: not under its field: ${JSON.stringify({ a, b })}`);
}

async function home(session) {
  await session.execute("document.activeElement && document.activeElement.blur()");
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
}

/** Out of the settings with an edit not saved: Esc asks, and Discard (a Tab away) leaves. */
async function discardSettings(session) {
  await session.execute("document.activeElement && document.activeElement.blur()");
  await session.keys(Key.Escape);
  await session.waitFor(tid("settings-discard"));
  await session.clickOn(tid("settings-discard-go"));
  await session.waitFor(tid("home"));
}

/** Runs `steps(session, project, work)` in the app on the lead's project at 1024×640, maria signed in. */
function asLead(t, env, steps) {
  return inApp(t, { make: leadProject, env }, async (session, { project, work }) => {
    await signInByKeys(session, "maria");
    await steps(session, project, work);
  });
}

test("refutation review: accept and reject by key with a note", async (t) => {
  await asLead(t, {}, async (session, project) => {
    assert.equal(pending(project).length, 3);
    await session.clickOn(tid("open-review"));
    await session.waitFor(tid("review-written"));
    assert.equal(await textOf(session, tid("review-count")), "3 waiting");
    const first = pending(project)[0];
    assert.equal(await textOf(session, tid("review-original")), first.original);
    assert.equal(await textOf(session, tid("review-written")), first.written);
    // The changed words are marked on both sides.
    assert.ok((await session.findAll(`${tid("review-written")} mark.diff`)).length > 0, "no changed word marked");
    await assertInView(session, tid("review-accept"), "Accept at 1024×640");
    await look(session, "light-review", tid("review-written"));

    // C to the note, Enter back to the keys, A accepts: its verification opens.
    await session.keys("c");
    await session.keys(`Good: one fact changed.${Key.Enter}`);
    await session.keys("a");
    await session.until("the acceptance", async () => (await textOf(session, tid("review-count"))) === "2 waiting");
    assert.match(await textOf(session, tid("review-status")), /^Accepted ana's refutation/);
    const left = pending(project);
    assert.equal(left.length, 2);
    assert.ok(!left.some((p) => p.annotation_id === first.annotation_id));
    const verify = JSON.parse(cli(["next", project, "--as", "ben", "--kind", "verify", "--json"])).item;
    assert.ok(verify, "accepting opened a verification task");
    assert.equal(verify.claim, first.original);

    // J moves on, R rejects that one.
    const second = left[1];
    await session.keys("j");
    await session.until("the second one", async () => (await textOf(session, tid("review-written"))) === second.written);
    await session.keys("r");
    await session.until("the rejection", async () => (await textOf(session, tid("review-count"))) === "1 waiting");
    assert.deepEqual(pending(project).map((p) => p.annotation_id), [left[0].annotation_id]);
    await home(session);
  });
});

test("flag decisions, settings with errors under their field, issuing a pack, merging an unanswered one", async (t) => {
  await asLead(t, {}, async (session, project, work) => {
    // Flags: Dan failed every trick; I counts him, L leaves him out, the button follows the flag.
    assert.equal(person(project, "dan").flagged, true);
    await session.clickOn(tid("open-flags"));
    await session.waitFor(tid("flag-row-dan"));
    assert.equal(await textOf(session, tid("flag-standing-dan")), "FLAGGED left out until you decide");
    await look(session, "light-flags", tid("flag-row-dan"));
    // At 1024×640 the flagged standing is whole on its line, not "…left out until …".
    const [needs, has] = await session.execute(
      "const c = document.querySelector('[data-testid=flag-standing-dan]'); return [c.scrollWidth, c.clientWidth]",
    );
    assert.ok(needs <= has, `dan's standing is cut: ${needs} px in ${has}`);
    await session.keys("i");
    await session.until("Dan counted", async () => (await textOf(session, tid("flag-standing-dan"))).endsWith("counted by your decision"));
    assert.deepEqual([person(project, "dan").flag_override, person(project, "dan").counted], ["include", true]);
    await session.keys("l");
    await session.until("Dan left out", async () => (await textOf(session, tid("flag-standing-dan"))).endsWith("left out by your decision"));
    assert.deepEqual([person(project, "dan").flag_override, person(project, "dan").counted], ["exclude", false]);
    await session.clickOn(tid("flag-clear-dan"));
    await session.until("the flag followed", async () => person(project, "dan").flag_override === null);
    await home(session);

    // Settings: a refusal is said under its field; a good save keeps the checks it does not show.
    const before = settings(project);
    await session.clickOn(tid("open-settings"));
    await session.waitFor(tid("setting-overlap"));
    await session.until("the settings read", async () =>
      (await session.execute("return document.querySelector('[data-testid=setting-overlap]')?.value ?? null")) === String(before.overlap),
    );
    await look(session, "light-settings", tid("settings-save"));
    // The form is longer than the window; Save stays in view under it.
    await assertInView(session, tid("settings-save"), "Save at 1024×640");
    await fill(session, tid("setting-overlap"), "0");
    await session.clickOn(tid("settings-save"));
    await session.until("the overlap refused", async () => (await textOf(session, tid("setting-error-overlap"))).length > 0);
    assert.equal(await textOf(session, tid("setting-error-overlap")), "Annotators per item must be between 1 and 20, not 0.");
    await assertUnder(session, tid("setting-overlap"), tid("setting-error-overlap"), "the overlap's error");
    // While a field is refused, Save looks and is unavailable, as Submit does on the work
    // screens: a plain button's colours, not the primary blue, even under the pointer that
    // just pressed it.
    const saveState = () =>
      session.execute(
        `const b = document.querySelector('[data-testid=settings-save]'); const plain = document.querySelector('[data-testid=settings-home]');
         return [b.classList.contains('not-ready'), b.getAttribute('aria-disabled'), getComputedStyle(b).backgroundColor === getComputedStyle(plain).backgroundColor];`,
      );
    assert.deepEqual(await saveState(), [true, "true", true], "Save with the overlap refused");
    await atTop(session);
    await look(session, "light-settings-error", tid("setting-error-overlap"));
    assert.equal((await session.findAll(tid("error"))).length, 0, "no banner at the top for a field's error");
    assert.equal(settings(project).overlap, before.overlap, "a refused save changed nothing");
    await fill(session, tid("setting-qualification_min_accepted"), "9");
    await fill(session, tid("setting-overlap"), "2");
    await session.clickOn(tid("settings-save"));
    await session.until("the qualification refused", async () => (await textOf(session, tid("setting-error-qualification_min_accepted"))).length > 0);
    assert.equal(await textOf(session, tid("setting-error-overlap")), "", "the fixed field's error went");
    await fill(session, tid("setting-qualification_min_accepted"), "4");
    await fill(session, tid("setting-trick_flag_threshold"), "30");
    await session.clickOn(tid("settings-save"));
    await session.until("the save", async () => (await textOf(session, tid("settings-status"))) === "Settings saved.");
    const after = settings(project);
    assert.equal(after.overlap, 2);
    assert.equal(after.trick_flag_threshold, 0.3);
    assert.deepEqual(after.checks, before.checks);
    assert.deepEqual(after.guidelines, before.guidelines);
    assert.equal(after.seed, before.seed);
    // Esc in a field leaves the field; Esc then asks before dropping an unsaved edit, with
    // "Keep editing" (Enter) the default, and Discard a Tab away.
    await fill(session, tid("setting-trick_flag_threshold"), "45");
    await session.keys(Key.Escape);
    assert.equal(await session.execute("return document.activeElement?.dataset?.testid ?? null"), null, "Esc left the field");
    assert.equal((await session.findAll(tid("settings-discard"))).length, 0, "Esc in a field asks nothing");
    await session.keys(Key.Escape);
    await session.waitFor(tid("settings-discard"));
    await session.until("Keep editing focused", async () =>
      (await session.execute("return document.activeElement?.dataset?.testid ?? null")) === "settings-keep" ? true : null,
    );
    await session.keys(Key.Enter);
    await session.until("the question gone", async () => ((await session.findAll(tid("settings-discard"))).length === 0 ? true : null));
    assert.equal(await session.execute("return document.querySelector('[data-testid=setting-trick_flag_threshold]').value"), "45", "Enter kept the edit");
    assert.equal((await session.findAll(tid("home"))).length, 0, "Enter stayed on the settings");
    await session.keys(Key.Escape);
    await session.waitFor(tid("settings-discard"));
    await session.keys(Key.Tab);
    await session.keys(Key.Enter);
    await session.waitFor(tid("home"));
    assert.equal(settings(project).trick_flag_threshold, 0.3, "the discarded edit was not saved");

    // Issuing a pack for Ben: three evidence items, due in a week, where the lead says.
    const out = join(work, "for-ben.fdpack");
    await session.clickOn(tid("open-issue-pack"));
    await session.waitFor(tid("issue-annotator"));
    await session.until("the annotators listed", async () => (await session.findAll(`${tid("issue-annotator")} option`)).length >= 4);
    await session.execute(
      `const set = (id, v) => { const e = document.querySelector('[data-testid=' + id + ']'); e.value = v; e.dispatchEvent(new Event('change')); e.dispatchEvent(new Event('input')); };
       set('issue-annotator', 'ben'); set('issue-kind', 'evidence');
       const due = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10); set('issue-due', due);`,
    );
    // The day typed is said back as the app writes days; one whose order is a guess is refused.
    assert.match(await textOf(session, tid("issue-due-read")), /^\d{1,2} [A-Z][a-z]{2} \d{4}, in 7 days:$/);
    // What the date does reads on after one word space, not a gap like two (walk of issue 36).
    const gap = await session.execute(
      "const r = document.querySelector('[data-testid=issue-due-read]'); return r.nextElementSibling.getBoundingClientRect().left - r.getBoundingClientRect().right",
    );
    assert.ok(gap >= 2 && gap <= 6, `the gap after the due date read back: ${gap} px`);
    // Leaving the field writes the day back as the app writes days, not as it was typed.
    const written = await session.execute(
      "const e = document.querySelector('[data-testid=issue-due]'); e.dispatchEvent(new Event('blur')); return e.value",
    );
    assert.match(written, /^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    await fill(session, tid("issue-due"), "12/05/2027");
    await session.clickOn(tid("issue-write"));
    assert.match(await textOf(session, tid("issue-error-due")), /could be 12 May 2027 or 5 Dec 2027/);
    assert.equal(packs(project).length, 0, "nothing issued");
    await session.execute(
      `const e = document.querySelector('[data-testid=issue-due]'); e.value = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10); e.dispatchEvent(new Event('input'));`,
    );
    await fill(session, tid("issue-count"), "3");
    await fill(session, tid("issue-out"), out);
    await session.clickOn(tid("issue-write"));
    await session.waitFor(tid("issue-done"));
    const issued = packs(project);
    assert.equal(issued.length, 1);
    assert.deepEqual([issued[0].annotator, issued[0].kind, issued[0].items, issued[0].state], ["ben", "evidence", 3, "out"]);
    // One id, shown short as the packs table shows it, whole in the tooltip; one file name
    // in "Write to" and "File:"; the due day as the app writes days.
    assert.equal(await textOf(session, tid("issue-pack-id")), issued[0].id.slice(0, 8));
    assert.equal(await session.attribute(await session.find(tid("issue-pack-id")), "title"), issued[0].id);
    assert.equal(await session.execute("return document.querySelector('[data-testid=issue-out]').value"), await textOf(session, tid("issue-written")));
    assert.match(await session.execute("return document.querySelector('[data-testid=issue-due]').value"), /^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    assert.ok(existsSync(out), "the pack was written where the lead said");
    const days = Math.round((issued[0].expires_at - issued[0].created_at) / 86_400_000);
    assert.ok(days >= 6 && days <= 7, `due in ${days} days`);
    await look(session, "light-issue", tid("issue-done"));
    // The same file again: refused, said under "Write to".
    await fill(session, tid("issue-out"), out);
    await session.clickOn(tid("issue-write"));
    await session.until("the refusal", async () => (await textOf(session, tid("issue-error-out"))).includes("nothing was written"));
    await assertUnder(session, ".issue-panel .inline-form", tid("issue-error-out"), "the file's error");
    await home(session);

    // The packs list shows the pack's id; merging the file as issued asks first.
    await session.waitFor(`${tid("packs")} ${tid("pack-id")}`);
    assert.equal(await textOf(session, `${tid("packs")} ${tid("pack-id")}`), issued[0].id.slice(0, 8));
    // The pack's kind in the words the issue form chose it by.
    assert.equal(await textOf(session, `${tid("packs")} ${tid("pack-kind")}`), "Evidence only");
    await fill(session, tid("merge-path"), out);
    await session.clickWhenStill(tid("merge-pasted"));
    await session.waitFor(tid("merge-ask"));
    assert.match(await textOf(session, tid("merge-question")), /^for-ben\.fdpack has no answers yet/);
    assert.equal(packs(project)[0].state, "out", "asking changed nothing");
    await look(session, "light-merge-ask", tid("merge-ask"), { element: tid("packs-panel") });
    // The safe answer is the default: it has the focus and is the primary button.
    assert.equal(await session.execute("return document.activeElement?.dataset.testid"), "merge-keep");
    assert.match(await session.attribute(await session.find(tid("merge-keep")), "class"), /primary/);
    // Keep it out: still out, nothing merged.
    await session.clickOn(tid("merge-keep"));
    await session.until("kept out", async () => (await textOf(session, tid("merge-outcome"))).includes("not merged; the pack is still out"));
    assert.equal(packs(project)[0].state, "out");
    // Asked again and told to take the work back: returned, its items back in the pool.
    await session.clickWhenStill(tid("merge-pasted"));
    await session.waitFor(tid("merge-give-back"));
    await session.clickOn(tid("merge-give-back"));
    await session.until("taken back", async () => (await textOf(session, tid("merge-outcome"))).includes("3 unanswered items back in the pool"));
    assert.equal(packs(project)[0].state, "returned");
    assert.equal((await session.findAll(tid("merge-ask"))).length, 0, "the question went");
  });
});

test("the lead's screens in the dark theme at 1024×640", async (t) => {
  await asLead(t, { GTK_THEME: "Adwaita:dark" }, async (session, project, work) => {
    assert.equal(await session.execute("return matchMedia('(prefers-color-scheme: dark)').matches"), true, "the system is dark");
    await session.clickOn(tid("open-review"));
    await look(session, "dark-review", tid("review-written"));
    await home(session);
    await session.clickOn(tid("open-flags"));
    await look(session, "dark-flags", tid("flag-row-dan"));
    await home(session);
    await session.clickOn(tid("open-settings"));
    await session.until("the settings read", async () =>
      (await session.execute("return document.querySelector('[data-testid=setting-overlap]')?.value ?? ''")) !== "",
    );
    await look(session, "dark-settings", tid("settings-save"));
    await fill(session, tid("setting-trick_template"), "It is false");
    await session.clickOn(tid("settings-save"));
    await session.until("the template refused", async () => (await textOf(session, tid("setting-error-trick_template"))).length > 0);
    await session.execute("document.querySelector('[data-testid=setting-trick_template]').scrollIntoView({ block: 'center' })");
    await look(session, "dark-settings-error", tid("setting-error-trick_template"), { scrolled: "the refused field is far down the form" });
    await discardSettings(session);
    const out = join(work, "for-ana.fdpack");
    await session.clickOn(tid("open-issue-pack"));
    await session.until("the annotators listed", async () => (await session.findAll(`${tid("issue-annotator")} option`)).length >= 4);
    await fill(session, tid("issue-count"), "2");
    await fill(session, tid("issue-out"), out);
    await session.clickOn(tid("issue-write"));
    await look(session, "dark-issue", tid("issue-done"));
    await home(session);
    await fill(session, tid("merge-path"), out);
    await session.clickWhenStill(tid("merge-pasted"));
    await session.waitFor(tid("merge-ask"));
    await look(session, "dark-merge-ask", tid("merge-ask"), { element: tid("packs-panel") });
    assert.equal(packs(project)[0].state, "out");

    // The lead protects the lead's screens with a password (issue 36): choosing maria on
    // "Who is working?" then asks for it, a wrong one is said, the right one goes home.
    // With none yet, maria's home says anyone here can open it, and leads to the password
    // box, in view and focused.
    await home(session);
    await session.waitFor(tid("open-lead-notice"));
    assert.match(await textOf(session, tid("open-lead-notice")), /anyone at this computer can open/);
    await session.clickOn(tid("open-lead-set-password"));
    await session.until("the password box focused", async () =>
      (await session.execute("return document.activeElement?.dataset?.testid ?? null")) === "lead-password" ? true : null,
    );
    await assertInView(session, tid("lead-password"), "the password box opened from the notice");
    await fill(session, tid("lead-password"), `maria's own${Key.Enter}`);
    await session.until("the password saved", async () => /^Saved\./.test(await textOf(session, tid("lead-password-status"))));
    await home(session);
    await session.clickOn(tid("switch-person"));
    await session.waitFor(tid("who-is-working"));
    await session.clickOn(tid("person-maria"));
    await session.waitFor(tid("who-password-box"));
    assert.match(await textOf(session, tid("who-password-problem")), /this name has a password: type it to work as maria/i);
    await atTop(session);
    await look(session, "dark-who-password", tid("who-password-box"));
    await session.keys(`guess${Key.Enter}`);
    await session.until("the wrong password said", async () => /wrong password/i.test(await textOf(session, tid("who-password-problem"))));
    assert.equal((await session.findAll(tid("home"))).length, 0, "a wrong password opened nothing");
    await fill(session, tid("who-password-box"), `maria's own${Key.Enter}`);
    await session.waitFor(tid("home"));
    assert.equal(await textOf(session, `${tid("current-person")} .bar-person-name`), "maria");
    assert.equal((await session.findAll(tid("open-lead-notice"))).length, 0, "with a password, no notice");
  });
});

test("as a hostile user: a review screen left open, a number too large for a setting, settings saved meanwhile elsewhere", async (t) => {
  await asLead(t, {}, async (session, project) => {
    await session.clickOn(tid("open-review"));
    await session.waitFor(tid("review-written"));
    assert.equal(await textOf(session, tid("review-count")), "3 waiting");
    // Another window (here the CLI) accepts the refutation on screen; the stale screen's
    // reject is refused, said by the buttons, and the list is read again.
    const shown = pending(project)[0];
    assert.equal(await textOf(session, tid("review-written")), shown.written);
    cli(["review", project, "--accept", String(shown.annotation_id)]);
    await session.keys("r");
    await session.until("the conflict said", async () => /accepted meanwhile/.test(await textOf(session, tid("review-problem"))));
    await session.until("the list read again", async () => (await textOf(session, tid("review-count"))) === "2 waiting");
    assert.equal(pending(project).length, 2);
    const state = JSON.parse(cli(["claims", project, "--filter", shown.written, "--json"]));
    assert.equal(state.total, 1, "the written claim is there");
    assert.equal((await session.findAll(tid("error"))).length, 0, "no banner at the top");
    await home(session);

    // A number beyond what a setting holds is refused under its field, in plain words.
    const before = settings(project);
    await session.clickOn(tid("open-settings"));
    await session.until("the settings read", async () =>
      (await session.execute("return document.querySelector('[data-testid=setting-overlap]')?.value ?? null")) === String(before.overlap),
    );
    await fill(session, tid("setting-overlap"), "99999999999999999999");
    await session.clickOn(tid("settings-save"));
    await session.until("the overlap refused", async () => (await textOf(session, tid("setting-error-overlap"))).length > 0);
    assert.equal(await textOf(session, tid("setting-error-overlap")), `Annotators per item: a whole number, such as ${before.overlap}.`);
    assert.equal((await session.findAll(tid("error"))).length, 0, "no banner at the top");
    assert.deepEqual(settings(project), before, "a refused save changed nothing");

    // Another window saves meanwhile: what it changed is kept, only the field changed
    // here is written; a field changed in both is said under it, and a second Save keeps
    // the value typed here.
    cli(["settings", project, "--set", "guidelines.label=Label with the document open.", "--set", "overlap=2"]);
    await fill(session, tid("setting-overlap"), String(before.overlap));
    await fill(session, tid("setting-reservation_minutes"), "45");
    await session.clickOn(tid("settings-save"));
    await session.until("saved", async () => (await textOf(session, tid("settings-status"))) === "Settings saved.");
    let saved = settings(project);
    assert.deepEqual([saved.reservation_minutes, saved.guidelines.label, saved.overlap], [45, "Label with the document open.", 2]);
    cli(["settings", project, "--set", "overlap=4"]);
    await fill(session, tid("setting-overlap"), "3");
    await session.clickOn(tid("settings-save"));
    await session.until("the clash said", async () => /Changed in another window meanwhile, to “4”/.test(await textOf(session, tid("setting-error-overlap"))));
    assert.equal(settings(project).overlap, 4, "nothing saved over the other window's change");
    await session.clickOn(tid("settings-save"));
    await session.until("saved again", async () => (await textOf(session, tid("settings-status"))) === "Settings saved.");
    saved = settings(project);
    assert.deepEqual([saved.overlap, saved.reservation_minutes, saved.guidelines.label], [3, 45, "Label with the document open."]);
    // At 1280×720 too: Save in view, a refusal under its field.
    await windowSize(session, 1280, 720);
    await assertInView(session, tid("settings-save"), "Save at 1280×720");
    await fill(session, tid("setting-overlap"), "0");
    await session.clickOn(tid("settings-save"));
    await session.until("the overlap refused", async () => (await textOf(session, tid("setting-error-overlap"))).length > 0);
    await assertUnder(session, tid("setting-overlap"), tid("setting-error-overlap"), "the overlap's error at 1280×720");
    await discardSettings(session);
    await session.clickOn(tid("open-review"));
    await session.waitFor(tid("review-written"));
    await assertInView(session, tid("review-accept"), "Accept at 1280×720");
    await assertInView(session, tid("review-reject"), "Reject at 1280×720");
  });
});
