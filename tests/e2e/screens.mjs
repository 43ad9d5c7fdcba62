// What the working-day tests share: the window's size, where things are on screen, the
// axe-core accessibility check run inside the app's webview, and a tour of every screen
// that saves a screenshot of each.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atTop, saveScreenshot, startApp } from "./harness.mjs";
import { currentTask, diagnose, itemReady, signInByKeys, textOf, tid } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Resizes the window so the page gets `width`×`height` CSS pixels, and checks it did. */
export async function windowSize(session, width, height) {
  await session.cmd("POST", "/window/rect", { width, height });
  await session.until(`a ${width}×${height} viewport`, async () => {
    const [w, h] = await session.execute("return [innerWidth, innerHeight]");
    return w === width && h === height;
  });
}

/** The bounding rect of the first element matching `css`, or null. */
export function rectOf(session, css) {
  return session.execute(
    "const e = document.querySelector(arguments[0]); if (!e) return null; const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, vh: innerHeight, vw: innerWidth };",
    [css],
  );
}

/** Asserts the element is wholly inside the window. */
export async function assertInView(session, css, what) {
  const r = await rectOf(session, css);
  assert.ok(r, `${what} is missing`);
  assert.ok(r.top >= 0 && r.bottom <= r.vh && r.left >= 0 && r.right <= r.vw, `${what} is off screen: ${JSON.stringify(r)}`);
  return r;
}

/**
 * On an evidence item at the current size (`size` names it in messages): the action bar,
 * Submit, the claim, every candidate and "no evidence" in view above the bar, and the
 * comment box wide enough for its placeholder; `least` candidates at least.
 */
export async function assertFits(session, size, least = 5) {
  const bar = await assertInView(session, tid("action-bar"), `the action bar at ${size}`);
  await assertInView(session, tid("submit"), `Submit at ${size}`);
  await assertInView(session, tid("item-claim"), `the claim at ${size}`);
  const cards = await session.findAll("[data-testid^='card-']");
  assert.ok(cards.length >= least, `${cards.length} candidates`);
  for (const css of [...cards.map((_, i) => tid(`card-${i + 1}`)), tid("no-evidence")]) {
    const r = await rectOf(session, css);
    assert.ok(r.top >= 0 && r.bottom <= bar.top + 1, `${css} at ${size} is hidden (bar at ${bar.top}): ${JSON.stringify(r)}`);
  }
  const [needed, room] = await session.execute(
    `const c = document.querySelector("[data-testid=comment]"); const s = getComputedStyle(c);
     const ctx = document.createElement("canvas").getContext("2d"); ctx.font = s.font;
     return [ctx.measureText(c.placeholder).width, c.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)];`,
  );
  assert.ok(needed <= room + 1, `the comment's placeholder is cut at ${size}: ${needed} px in ${room}`);
}

/**
 * Runs axe-core in the webview on the screen as it is and fails on any serious or critical
 * violation, naming the rule and the elements.
 */
export async function assertAccessible(session, screen) {
  const loaded = await session.execute("return typeof window.axe === 'object'");
  if (!loaded) await session.execute(`${axeSource}\nreturn true;`);
  const violations = await session.executeAsync(
    `const done = arguments[arguments.length - 1];
     window.axe.run(document, { resultTypes: ["violations"] }).then(
       (r) => done(r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " — " + n.failureSummary) }))),
       (e) => done([{ id: "axe-error", impact: "critical", help: String(e), nodes: [] }]),
     );`,
  );
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(bad, [], `${screen}: accessibility violations:\n${JSON.stringify(bad, null, 2)}`);
  return violations;
}

/**
 * Runs `steps(session, { project, work, made })` in the app on a fresh project: `make`
 * builds it at `project` with the real CLI (what it returns is `made`), the app starts on
 * it with `env` added to its environment (GTK_THEME=Adwaita:dark for the dark theme) at
 * `size` CSS pixels (null leaves the window as it opens), and everything is stopped and
 * removed afterwards; a failure adds the app's logs to the test's diagnostics.
 */
export async function inApp(t, { make, env = {}, size = [1024, 640], file = "demo.fdesk" }, steps) {
  const work = mkdtempSync(join(tmpdir(), "factdesk-e2e-"));
  const project = join(work, file);
  let app;
  let session;
  try {
    const made = make(project, work);
    app = await startApp(work, project, env);
    session = await app.open();
    if (size) await windowSize(session, size[0], size[1]);
    await steps(session, { project, work, made });
  } catch (e) {
    await diagnose(t, app, session);
    throw e;
  } finally {
    await session?.delete().catch(() => {});
    try {
      await app?.stop();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}

/**
 * Saves a screenshot of the screen as it is as docs/screenshots/compact/`name`.png and runs
 * axe on it; with `css`, waits for that first; on a work screen, waits for the item to
 * take keys and to be drawn in full colour. The whole window, from its top (`scrolled`
 * says why not); with `element` (a selector), that element alone.
 */
export async function look(session, name, css, { element, scrolled } = {}) {
  if (css) await session.waitFor(css, 20_000);
  // A work screen dims an item until it takes keys: look once it does...
  if ((await session.findAll("main.work")).length > 0) {
    await itemReady(session);
    // ...and once its 0.12 s fade back to full colour has ended, or axe measures a
    // half-faded text's contrast.
    await fadedIn(session);
  }
  await saveScreenshot(session, `compact/${name}.png`, { element, scrolled });
  await assertAccessible(session, name);
}

/**
 * Waits until nothing on the page is mid-transition: every part of the work screen at
 * full opacity and no animation running (CSS transitions are in document.getAnimations()).
 */
export async function fadedIn(session, timeoutMs = 5_000) {
  await session.until(
    "the work screen's fade to end",
    () =>
      session.execute(
        `const faded = [...document.querySelectorAll(".work-main > *")].filter((e) => getComputedStyle(e).opacity !== "1").length;
         const running = document.getAnimations().filter((a) => a.playState === "running").length;
         return faded === 0 && running === 0;`,
      ),
    timeoutMs,
    20,
  );
}

const visit = (session, prefix, name, css) => look(session, `${prefix}-${name}`, css);

/**
 * On the adjudication screen (`what` names the case): the subtitle whole, never cut; each
 * answer's sentences in a box of whole lines, the "more" line under the box and never over
 * its text, and a box that does not scroll showing every sentence whole; the candidates'
 * numbers plain, not drawn as the key caps the answers' digits are (the walk of issue 36).
 */
export async function assertAnswersReadable(session, what) {
  const seen = await session.execute(
    `const lede = document.querySelector("[data-testid=adj-lede]");
     const boxes = [...document.querySelectorAll(".adj-answer-box")].map((box) => {
       const list = box.querySelector(".adj-answer-sentences");
       const l = list.getBoundingClientRect();
       const more = box.querySelector(".adj-more");
       const m = more.getBoundingClientRect();
       const line = parseFloat(getComputedStyle(list).lineHeight);
       const scrolls = list.scrollHeight > list.clientHeight + 1;
       const outside = [...list.querySelectorAll(".adj-answer-text")].filter((t) => {
         const r = t.getBoundingClientRect();
         return r.top < l.top - 0.5 || r.bottom > l.bottom + 0.5;
       }).length;
       return { who: box.closest(".adj-answer").dataset.testid, lines: list.clientHeight / line, scrolls,
                moreShown: getComputedStyle(more).display !== "none", moreTop: m.top, listBottom: l.bottom, outside };
     });
     const num = document.querySelector(".adj-num");
     const cap = document.querySelector(".adj-answer kbd");
     const style = (e) => e && getComputedStyle(e);
     return {
       lede: lede && { cut: lede.scrollWidth > lede.clientWidth + 1 || style(lede.querySelector(".adj-lede-text")).textOverflow === "ellipsis", right: lede.getBoundingClientRect().right, vw: innerWidth },
       boxes,
       num: num && { background: style(num).backgroundColor, border: style(num).borderTopStyle },
       cap: cap && style(cap).borderTopStyle,
     };`,
  );
  assert.ok(seen.lede && !seen.lede.cut && seen.lede.right <= seen.lede.vw, `the subtitle is cut (${what}): ${JSON.stringify(seen.lede)}`);
  for (const b of seen.boxes) {
    assert.ok(Math.abs(b.lines - Math.round(b.lines)) < 0.01, `${b.who}'s box ends mid-line (${what}): ${JSON.stringify(b)}`);
    assert.equal(b.moreShown, b.scrolls, `${b.who}'s "more" is shown exactly when its box scrolls (${what}): ${JSON.stringify(b)}`);
    if (b.moreShown) assert.ok(b.moreTop >= b.listBottom - 0.5, `${b.who}'s "more" is over its text (${what}): ${JSON.stringify(b)}`);
    else assert.equal(b.outside, 0, `${b.who}'s sentences fit but are not whole (${what}): ${JSON.stringify(b)}`);
  }
  if (seen.num) {
    assert.equal(seen.num.background, "rgba(0, 0, 0, 0)", `a candidate's number is drawn on a tag (${what})`);
    assert.equal(seen.num.border, "none", `a candidate's number is drawn as a key cap (${what})`);
  }
  if (seen.cap) assert.equal(seen.cap, "solid", `an answer's key is drawn as a key cap (${what})`);
  return seen;
}

/** From a work screen back to home: out of any field first, then Esc. */
async function home(session) {
  await session.execute("document.activeElement && document.activeElement.blur()");
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));
}

/**
 * Every screen an annotator (`annotator`) and a lead (`lead`) see (the start screen last), at the current window
 * size: a screenshot of each in docs/screenshots/compact/`prefix`-*.png and axe on each.
 * The annotator must have exactly one verification item left, so the tour ends on the
 * "nothing to do" screen.
 */
export async function tour(session, prefix, annotator, lead) {
  await visit(session, prefix, "who-is-working", tid("who-is-working"));
  await signInByKeys(session, annotator);
  await visit(session, prefix, "home", tid("home"));

  await session.keys("1");
  await session.waitFor(tid("option-1"));
  await itemReady(session);
  await session.keys("2");
  await visit(session, prefix, "evidence", `${tid("option-2")}[aria-checked='true']`);
  // The J/K cursor is a solid ring of its own colour, not a faint glow.
  await session.keys("j");
  const [ring, selected] = await session.execute(
    `const style = (e) => e && getComputedStyle(e);
     const c = style(document.querySelector(".option.cursor"));
     const s = style(document.querySelector(".option.selected:not(.cursor)"));
     return [c && [c.outlineStyle, parseFloat(c.outlineWidth), c.outlineColor], s && s.borderColor];`,
  );
  assert.ok(ring && ring[0] === "solid" && ring[1] >= 2 && ring[2] !== selected, `the cursor's ring: ${JSON.stringify({ ring, selected })}`);
  await session.keys("?");
  await visit(session, prefix, "help", tid("keys-help"));
  // The keys and the guideline under them fit the window, Close and all.
  await assertInView(session, tid("keys-help"), `the keys sheet (${prefix})`);
  await session.keys(Key.Escape);
  await session.until("the keys closed", async () => ((await session.findAll(tid("keys-help"))).length === 0 ? true : null));
  await session.keys("d");
  await visit(session, prefix, "passage", tid("passage-hit"));
  // A sentence shown alone (a claim's evidence imported without its document) says there
  // is no text around it, rather than pass for a document of one sentence.
  const [sentences, alone] = await session.execute(
    "return [document.querySelector('[data-testid=passage] .passage-body p').children.length, !!document.querySelector('[data-testid=passage-alone]')]",
  );
  assert.equal(alone, sentences === 1, `${sentences} sentences shown; said alone: ${alone}`);
  // The guideline, cut to a line beside the passage, is whole in its tooltip (and under
  // "?"), and M shows it whole in place.
  const guideline = await session.execute(
    "const g = document.querySelector('[data-testid=guidelines] .guidelines-text'); return [g.title, g.textContent, g.parentElement.classList.contains('cut')]",
  );
  assert.equal(guideline[0], guideline[1], "the guideline's tooltip holds it whole");
  if (guideline[2]) {
    await session.keys("m");
    await session.until("the guideline whole", async () =>
      (await session.execute("return document.querySelector('[data-testid=guidelines]').classList.contains('whole')")) ? true : null,
    );
    await session.keys("m");
  }
  await assertFits(session, `${prefix}, the passage open`, 1);
  await session.keys(Key.Escape);
  await home(session);

  await session.keys("2");
  await session.waitFor(tid("refute-input"));
  await itemReady(session);
  await visit(session, prefix, "refute", "[data-testid^='check-']");
  await home(session);

  await session.keys("4");
  await session.waitFor(tid("label-1"));
  await itemReady(session);
  await session.keys("1");
  await visit(session, prefix, "label", `${tid("label-1")}[aria-pressed='true']`);
  await home(session);

  await session.keys("3");
  await session.waitFor(tid("verify-1"));
  const task = await currentTask(session);
  await session.keys("2");
  await visit(session, prefix, "verify", `${tid("verify-2")}[aria-pressed='true']`);
  await session.keys(Key.Enter);
  await session.waitFor(tid("no-item"));
  // After the last item the count is the backend's: all of them, not one short.
  await session.until("the final count", async () => {
    const [done, total] = await session.execute(
      "return [document.querySelector('[data-testid=progress-done]')?.textContent, document.querySelector('[data-testid=progress-total]')?.textContent]",
    );
    return done !== undefined && done !== null && done === total;
  });
  // No item, nothing to report: no "Report !" beside "nothing to do".
  assert.equal(await session.execute("const r = document.querySelector('[data-testid=report]'); return !r || r.getClientRects().length === 0"), true, `Report shown with no item (${prefix})`);
  await visit(session, prefix, "done", tid("no-item"));
  assert.ok(task, "a verification item was shown");
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));

  await session.clickOn(tid("switch-person"));
  await signInByKeys(session, lead);
  await visit(session, prefix, "lead", tid("open-dashboard"));
  // The lead's home opens on the project: every tool and the annotators' table in view,
  // each tool with its key drawn whole inside its button.
  for (const tool of ["open-dashboard", "open-adjudicate", "open-export", "open-claims", "open-review", "open-flags", "open-settings", "open-issue-pack"]) {
    const button = await assertInView(session, tid(tool), `${tool} on the lead's first screen (${prefix})`);
    const key = await assertInView(session, tid(`${tool}-key`), `${tool}'s key (${prefix})`);
    assert.ok(key.left >= button.left && key.right <= button.right, `${tool}'s key outside its button (${prefix})`);
  }
  const table = await rectOf(session, tid("annotators"));
  assert.ok(table.top < table.vh - 40, `the annotators' table is out of sight (${prefix}): ${JSON.stringify(table)}`);
  // The lower half of the lead's home: the packs panel alone, under its heading.
  await look(session, `${prefix}-lead-packs`, tid("packs-panel"), { element: tid("packs-panel") });
  await atTop(session);
  await session.keys("/");
  await session.keys(`lighthouse${Key.Enter}`);
  await visit(session, prefix, "search", tid("search-hit"));
  // A sentence hit opens among its neighbours.
  const kinds = await session.execute("return [...document.querySelectorAll('[data-testid=search-hit-kind]')].map((k) => k.textContent)");
  const sentence = kinds.indexOf("Sentence");
  assert.ok(sentence >= 0, `a sentence among the hits: ${kinds.join(", ")}`);
  for (let i = 0; i <= sentence; i += 1) await session.keys(Key.ArrowDown);
  await session.keys(Key.Enter);
  await visit(session, prefix, "sentence", `${tid("sentence-passage")} mark`);
  await session.keys(Key.Escape);
  await session.waitFor(tid("home"));

  // The tools open by the keys their buttons show (out of the search field first).
  await session.execute("document.activeElement && document.activeElement.blur()");
  await session.keys("b");
  await visit(session, prefix, "dashboard", tid("fleiss-evidence"));
  // Each pair's κ with its n, inside its cell, and the caption says pairs have no interval.
  const pairs = await session.execute(
    `return [...document.querySelectorAll("[data-testid^=pair-n-evidence-]")].map((n) => {
       const r = n.getBoundingClientRect();
       const c = n.closest("[role=cell]").getBoundingClientRect();
       return { text: n.textContent, inside: r.left >= c.left && r.right <= c.right && r.top >= c.top && r.bottom <= c.bottom };
     });`,
  );
  assert.ok(pairs.length >= 2 && pairs.every((p) => /^n \d+$/.test(p.text) && p.inside), `the pairs' n (${prefix}): ${JSON.stringify(pairs)}`);
  assert.match(await textOf(session, tid("pairs-caption-evidence")), /no interval/);
  await session.clickOn(tid("dash-home"));
  await session.waitFor(tid("open-adjudicate"));
  await session.execute("document.activeElement && document.activeElement.blur()");
  await session.keys("q");
  await visit(session, prefix, "adjudicate", tid("adj-claim"));
  await assertAnswersReadable(session, prefix);
  // Every badge inside its answer's card; the decision and "Why" on screen under the cards.
  const outside = await session.execute(
    `return [...document.querySelectorAll(".adj-answer")].flatMap((card) => {
       const c = card.getBoundingClientRect();
       return [...card.querySelectorAll(".badge")].filter((b) => b.getBoundingClientRect().right > c.right + 0.5).map((b) => b.textContent);
     });`,
  );
  assert.deepEqual(outside, [], `badges past their card's border (${prefix})`);
  await assertInView(session, tid("adj-outcome"), `the outcome on the adjudication screen (${prefix})`);
  await assertInView(session, tid("adj-reason"), `"Why" on the adjudication screen (${prefix})`);
  await session.clickOn(tid("adj-export"));
  await visit(session, prefix, "export", tid("export-lines"));
  // The path shows its start and its file name, both whole; the full path in the tooltip.
  const path = await session.execute(
    `const out = document.querySelector("[data-testid=export-out]");
     const shown = document.querySelector("[data-testid=export-out-shown]");
     const [folder, name] = [shown.querySelector(".path-folder"), shown.querySelector(".path-name")];
     const box = out.getBoundingClientRect();
     return { value: out.value, title: out.title, text: shown.textContent, visible: getComputedStyle(shown).display !== "none",
              folderLeft: folder.getBoundingClientRect().left, nameRight: name.getBoundingClientRect().right, nameCut: name.scrollWidth > name.clientWidth,
              left: box.left, right: box.right };`,
  );
  assert.ok(path.visible && path.text === path.value && path.value.startsWith("/"), `the path field shows the path: ${JSON.stringify(path)}`);
  assert.equal(path.title, path.value, "the whole path in the tooltip");
  assert.ok(path.folderLeft >= path.left && path.folderLeft <= path.left + 16, `the path's start is cut: ${JSON.stringify(path)}`);
  assert.ok(!path.nameCut && path.nameRight <= path.right, `the file name is cut: ${JSON.stringify(path)}`);
  await session.clickOn(tid("back-to-start"));
  await visit(session, prefix, "start", tid("start-screen"));
}
