// End to end: a project's own design (issue 33) in the real app on a real project. An
// annotator answers a pair of the zanzotto recipe by keys alone (digits for the labels,
// ↓ to the next question, Enter), goes back to find the answer restored, and the CLI
// stores what was pressed; the lead's dashboard and queue open on design answers. Then a project asking for the salient words of a claim (COVID-Fact's
// span question): words marked by ← → and Space, and the CLI stores their exact spans in
// code points (the claim starts with an emoji, two UTF-16 units). Screenshots at
// 1024×640: a pair (light and dark), a right-to-left pair, and words marked.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cli } from "./harness.mjs";
import { assertInView, inApp, look } from "./screens.mjs";
import { currentTask, itemReady, signInByKeys, submitByCli, submitByEnter, tid, wholeTextOf } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

const DARK = { GTK_THEME: "Adwaita:dark" };

/** Revision pairs as the zanzotto recipe takes them; one in Arabic. */
const PAIRS = [
  { id: "p1", text_a: "The bridge was opened to traffic in 1932 after six years of work.", text_b: "The bridge was opened to traffic in 1932." },
  { id: "p2", text_a: "The river floods the valley every spring.", text_b: "The river has never flooded the valley." },
  { id: "p3", text_a: "افتُتح الجسر أمام حركة المرور عام ١٩٣٢.", text_b: "لم يُفتتح الجسر أمام حركة المرور قط." },
  { id: "p4", text_a: "The museum holds 3,000 paintings.", text_b: "The museum is the city's largest." },
];

/** Claims whose salient words are marked; each starts with an emoji (one code point, two UTF-16 units). */
const CLAIMS = [
  { id: "c1", claim: "🦠 Masks cut the spread of the virus by 80%" },
  { id: "c2", claim: "🧪 A new test finds the virus in ten minutes" },
];

/**
 * The salient words marked by keys on each claim: the keys from the first word, and the
 * spans the answer must store, in code points. Marked words that touch make one span.
 */
const SALIENT = {
  c1: { keys: [" ", Key.ArrowRight, Key.ArrowRight, Key.ArrowRight, " ", Key.ArrowRight, " ", Key.ArrowRight, " ", Key.ArrowRight, " "], spans: [[2, 7], [16, 35]], words: ["Masks", "spread of the virus"] },
  c2: { keys: [Key.ArrowRight, Key.ArrowRight, " ", Key.ArrowRight, Key.ArrowRight, Key.ArrowRight, Key.ArrowRight, Key.ArrowRight, " ", Key.ArrowRight, " "], spans: [[8, 12], [32, 43]], words: ["test", "ten minutes"] },
};

const SALIENT_DESIGN = {
  name: "salient-words",
  questions: [{ id: "salient", type: "span", over: "text_a", required: true, guideline: "Mark the words that carry the claim: change them and it says something else." }],
};

function writeJsonl(path, rows) {
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

/** The zanzotto recipe's project on PAIRS, two annotators an item, a lead and two annotators. */
function pairProject(project, work) {
  cli(["init", project, "--recipe", "zanzotto"]);
  cli(["settings", project, "--set", "seed=1"]);
  const file = join(work, "pairs.jsonl");
  writeJsonl(file, PAIRS);
  cli(["import", project, file]);
  cli(["tasks", project, "--kind", "design", "--overlap", "2"]);
  cli(["annotators", project, "add", "maria", "--role", "lead"]);
  for (const name of ["ana", "ben"]) cli(["annotators", project, "add", name]);
}

/** A project asking for the salient words of CLAIMS. */
function salientProject(project, work) {
  cli(["init", project]);
  cli(["settings", project, "--set", "seed=1"]);
  cli(["settings", project, "--set", `design=${JSON.stringify(SALIENT_DESIGN)}`]);
  const file = join(work, "claims.jsonl");
  writeJsonl(file, CLAIMS);
  cli(["import", project, file]);
  cli(["tasks", project, "--kind", "design", "--overlap", "2"]);
  cli(["annotators", project, "add", "maria", "--role", "lead"]);
  cli(["annotators", project, "add", "ana"]);
}

/** Every answer in the project, as `factdesk answers` writes them. */
function storedAnswers(project, work) {
  const out = join(work, `answers-${Date.now()}.jsonl`);
  cli(["answers", project, "--as", "maria", "--out", out]);
  return readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

const pressed = (session, id) => session.execute("return document.querySelector(arguments[0])?.getAttribute('aria-pressed')", [tid(id)]);
const isCurrent = (session, id) => session.execute("return document.querySelector(arguments[0])?.classList.contains('current')", [tid(id)]);

/** From home, opens the design work by its number, once home lists it. */
async function openDesign(session) {
  await session.waitFor(`${tid("kind-design")}:not([hidden])`);
  const kinds = await session.execute("return [...document.querySelectorAll('.kind-card')].filter((c) => !c.hidden).map((c) => c.dataset.testid)");
  const number = await session.execute("return [...document.querySelectorAll('.kind-card')].findIndex((c) => c.dataset.testid === 'kind-design') + 1");
  assert.ok(kinds.includes("kind-design"), `home lists ${kinds.join(", ")}`);
  assert.equal(await wholeTextOf(session, `${tid("kind-design")} .kind-title`), "Questions");
  await session.keys(String(number));
  await session.waitFor(tid("design-questions"));
  await itemReady(session);
}

/** Which pair is on screen, by its first text. */
async function pairOnScreen(session) {
  const first = await wholeTextOf(session, tid("item-claim"));
  const pair = PAIRS.find((p) => p.text_a === first);
  assert.ok(pair, `an unknown pair on screen: ${first}`);
  return pair;
}

/** Answers the pair on screen by keys: relation `r` (1–3), ↓, noise `n` (1–2); not submitted. */
async function answerPair(session, r, n, down = Key.ArrowDown) {
  assert.equal(await isCurrent(session, "dq-relation"), true, "the first question is the current one");
  await session.keys(String(r));
  await session.until(`relation ${r} chosen`, async () => (await pressed(session, `dq-relation-${r}`)) === "true");
  await session.keys(down);
  await session.until("the second question current", () => isCurrent(session, "dq-noise"));
  await session.keys(String(n));
  await session.until(`noise ${n} chosen`, async () => (await pressed(session, `dq-noise-${n}`)) === "true");
}

const RELATIONS = ["entailment", "contradiction", "unknown"];
const NOISE = ["clean", "noisy"];

test("a pair answered by keys only, restored on going back, stored as pressed; the lead's screens open on it; light and right-to-left", async (t) => {
  await inApp(t, { make: pairProject }, async (session, { project, work }) => {
    await signInByKeys(session, "ana");
    await openDesign(session);
    const answered = new Map();
    let shotPair = false;
    let shotArabic = false;
    for (let i = 0; i < PAIRS.length; i += 1) {
      const task = await currentTask(session);
      assert.ok(task, `design item ${i + 1} is missing`);
      const pair = await pairOnScreen(session);
      const [r, n] = pair.id === "p2" ? [2, 1] : pair.id === "p4" ? [3, 2] : [1, 1];
      // J is ↓ too: one pair moves on with it.
      await answerPair(session, r, n, i === 1 ? "j" : Key.ArrowDown);
      if (pair.id === "p3" && !shotArabic) {
        assert.equal(await session.execute("return document.querySelector('[data-testid=design-pair]').getAttribute('dir')"), "rtl");
        await look(session, "arabic-design-pair");
        shotArabic = true;
      } else if (!shotPair) {
        await look(session, "light-design-pair");
        shotPair = true;
      }
      // Both texts, every question and Submit in the window at 1024×640.
      for (const id of ["item-claim", "item-text-b", "dq-relation", "dq-noise", "submit"]) await assertInView(session, tid(id), `${id} on ${pair.id}`);
      await submitByEnter(session, Key, task);
      // An annotator's item carries an id of their own, not the task's: the answers are
      // matched by their first text.
      answered.set(pair.text_a, { pair, relation: RELATIONS[r - 1], noise: NOISE[n - 1] });
    }
    await session.waitFor(tid("no-item"));
    await itemReady(session);

    // Going back shows the last answer, restored on its buttons.
    await session.keys("p");
    await session.waitFor(tid("editing-previous"));
    await itemReady(session);
    const back = answered.get((await pairOnScreen(session)).text_a);
    assert.ok(back, "the previous item is one answered here");
    const r = RELATIONS.indexOf(back.relation) + 1;
    const n = NOISE.indexOf(back.noise) + 1;
    assert.equal(await pressed(session, `dq-relation-${r}`), "true", "the relation given is restored");
    assert.equal(await pressed(session, `dq-noise-${n}`), "true", "the noise given is restored");

    // What the CLI stores is what was pressed, on every item.
    const rows = storedAnswers(project, work).filter((row) => row.annotator === "ana" && row.task_kind === "design");
    assert.equal(rows.length, PAIRS.length);
    for (const row of rows) {
      const want = answered.get(row.claim);
      assert.ok(want, `an answer to ${row.claim}, not answered in the app`);
      assert.deepEqual(row.answers, { noise: want.noise, relation: want.relation });
    }

    // Ben disagrees on most pairs. The lead's dashboard shows agreement per question, and
    // the queue lists the split pairs with both answers, question by question.
    for (let i = 0; i < PAIRS.length; i += 1) {
      const item = JSON.parse(cli(["next", project, "--as", "ben", "--kind", "design", "--json"])).item;
      if (!item) break;
      submitByCli(project, "ben", [{ task_id: item.task_id, answers: { relation: "unknown", noise: "noisy" }, duration_ms: 6000 }]);
    }
    await session.keys(Key.Escape);
    await session.waitFor(tid("home"));
    await session.clickOn(tid("switch-person"));
    await signInByKeys(session, "maria");
    const banner = () => session.execute("return document.querySelector('[data-testid=error]')?.textContent ?? null");
    await session.clickOn(tid("open-dashboard"));
    await session.until("the dashboard read", async () => !(await wholeTextOf(session, tid("dash-body"))).includes("Reading the answers"));
    assert.equal(await banner(), null, "the dashboard opens on design answers");
    await session.waitFor(tid("dash-question-relation"), 20_000);
    assert.match(await wholeTextOf(session, tid("dash-question-relation")), /items, 2 annotators/);
    await look(session, "light-dashboard-design", tid("dash-design"), { element: tid("dash-design") });
    await session.clickOn(tid("dash-home"));
    await session.clickOn(tid("open-adjudicate"));
    await session.waitFor(tid("adj-claim"), 20_000);
    assert.equal(await banner(), null, "the adjudication queue opens on design answers");
    await look(session, "light-adjudicate-design", tid("adj-claim"));
    // Issue 36, item 3: the lead sees what is judged, the pair's two texts side by side
    // above the answers at 1024×640, and each answer question by question in the work
    // screen's order and titles, not the first text alone and "noise: …; relation: …".
    const shown = await wholeTextOf(session, tid("adj-claim"));
    const pair = PAIRS.find((p) => p.text_a === shown);
    assert.ok(pair, `the first text of a pair: ${shown}`);
    assert.equal(await wholeTextOf(session, tid("adj-text-b")), pair.text_b);
    const first = await assertInView(session, tid("adj-claim"), "the first text");
    const second = await assertInView(session, tid("adj-text-b"), "the second text");
    const answers = await assertInView(session, ".adj-answers", "the answers");
    assert.ok(Math.abs(first.top - second.top) <= 2 && first.right <= second.left, `side by side: ${JSON.stringify({ first, second })}`);
    assert.ok(Math.max(first.bottom, second.bottom) <= answers.top, `above the answers: ${JSON.stringify({ first, second, answers })}`);
    assert.match(await wholeTextOf(session, tid("adj-value-ben")), /^Relation:\s*\S+.*Noise:/s);
    assert.match(await wholeTextOf(session, tid("adj-outcome")), /question/);
  });
});

test("a pair in the dark theme", async (t) => {
  await inApp(t, { make: pairProject, env: DARK }, async (session) => {
    await signInByKeys(session, "ben");
    await openDesign(session);
    // A left-to-right pair for the picture: skip the Arabic one if it comes first.
    for (let i = 0; i < PAIRS.length && (await pairOnScreen(session)).id === "p3"; i += 1) {
      const task = await currentTask(session);
      await session.keys("s");
      await session.until("the next pair", async () => (await currentTask(session)) !== task);
    }
    await answerPair(session, 2, 1);
    await look(session, "dark-design-pair");
    // "?" lists the design's keys, and the sheet fits the window whole.
    await session.keys("?");
    await session.waitFor(tid("keys-help"));
    const sheet = await wholeTextOf(session, tid("keys-help"));
    for (const key of ["J / ↓", "K / ↑", "1–2", "←", "→", "Space", "Enter"]) assert.ok(sheet.includes(key), `${key} in the keys sheet: ${sheet}`);
    await assertInView(session, tid("keys-help"), "the keys sheet");
    await session.keys(Key.Escape);
  });
});

test("salient words marked by ← → and Space; the CLI stores their spans in code points", async (t) => {
  await inApp(t, { make: salientProject }, async (session, { project, work }) => {
    await signInByKeys(session, "ana");
    await openDesign(session);
    const done = new Map();
    for (let i = 0; i < CLAIMS.length; i += 1) {
      const task = await currentTask(session);
      const text = await wholeTextOf(session, tid("item-claim"));
      const claim = CLAIMS.find((c) => c.claim === text);
      assert.ok(claim, `an unknown claim on screen: ${text}`);
      const plan = SALIENT[claim.id];
      // The one question is the current one, its cursor on the first word.
      await session.until("the word cursor on the first word", () =>
        session.execute("return document.querySelector('[data-testid=dq-salient-word-1]')?.classList.contains('cursor')"),
      );
      await session.keys(plan.keys.join(""));
      const marked = await session.until("the words marked", async () => {
        const said = await wholeTextOf(session, tid("dq-salient-marked"));
        return said === `Marked: ${plan.words.join(", ")}` ? said : null;
      });
      assert.ok(marked);
      if (i === 0) await look(session, "light-design-words");
      await submitByEnter(session, Key, task);
      done.set(claim.claim, plan);
    }
    const rows = storedAnswers(project, work).filter((row) => row.annotator === "ana");
    assert.equal(rows.length, CLAIMS.length);
    for (const row of rows) {
      const plan = done.get(row.claim);
      assert.ok(plan, `${row.claim} was not answered in the app`);
      assert.deepEqual(row.answers, { salient: { spans: plan.spans } });
      // The spans are code points: the words they cover, read so, are the words marked.
      const chars = [...row.claim];
      assert.deepEqual(row.answers.salient.spans.map(([s, e]) => chars.slice(s, e).join("")), plan.words);
    }
  });
});
