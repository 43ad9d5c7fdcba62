// Steps the end-to-end tests share: finding things by test id, signing in by keyboard,
// and answering as an annotator through the CLI.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, demoProject } from "./harness.mjs";
import { WebDriverError } from "./webdriver.mjs";

/** The CSS selector of a data-testid. */
export const tid = (id) => `[data-testid="${id}"]`;

/** The text of the element matching `css` (found again should a live screen replace it; see Session.onElement). */
export async function textOf(session, css) {
  return session.text(await session.find(css));
}

/** The data-testid of every element matching `css`; all looked up again if the screen re-rendered meanwhile. */
export async function testIds(session, css) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const els = await session.findAll(css);
      return await Promise.all(els.map((e) => session.attribute(e, "data-testid")));
    } catch (e) {
      if (!(e instanceof WebDriverError) || e.error !== "stale element reference" || attempt >= 5) throw e;
    }
  }
}

/** On "Who is working?", picks `name` by pressing its number, and waits for home. */
export async function signInByKeys(session, name) {
  await session.waitFor(tid("who-is-working"));
  const people = await testIds(session, "[data-testid^='person-']");
  const at = people.indexOf(`person-${name}`);
  assert.ok(at >= 0 && at < 9, `${name} is not among ${people.join(", ")}`);
  await session.keys(String(at + 1));
  await session.waitFor(tid("home"));
  assert.equal(await textOf(session, `${tid("current-person")} .bar-person-name`), name);
}

/**
 * Waits until the work screen takes keys: an item drops keys until it has painted and
 * shown for a moment (data-ready on the screen), so a test types only after that.
 */
export async function itemReady(session) {
  await session.until("the item to take keys", async () => (await session.findAll("main.work[data-ready='true']")).length > 0);
}

/** The item on screen now, once it takes keys: its task id, or null when there is none. */
export async function currentTask(session) {
  if ((await session.findAll(tid("item-task-id"))).length === 0) return null;
  await itemReady(session);
  const ids = await session.findAll(tid("item-task-id"));
  return ids.length ? Number(await session.text(ids[0])) : null;
}

/** Submits with Enter and waits until the ack for `task` arrived and another item shows. */
export async function submitByEnter(session, Key, task) {
  await session.keys(Key.Enter);
  await session.until(`the ack for task ${task} and the next item`, async () => {
    const saved = await session.attribute(await session.find(tid("saved-indicator")), "data-task");
    return saved === String(task) && (await currentTask(session)) !== task;
  });
}

/** The next item `name` would get from the CLI (which reserves it for them). */
export function nextByCli(project, name, kind = "evidence") {
  return JSON.parse(cli(["next", project, "--as", name, "--kind", kind, "--json"])).item;
}

/** Submits answers for `name` through `factdesk submit`; returns the acks. */
export function submitByCli(project, name, answers) {
  const out = cli(["submit", project, "--as", name], answers.map((a) => JSON.stringify(a)).join("\n") + "\n");
  const acks = out.trim().split("\n").map((l) => JSON.parse(l));
  for (const a of acks) assert.ok(a.ack, `not acknowledged: ${JSON.stringify(a)}`);
  return acks;
}

/** On a failure: the app's logs and the error banner it showed, if any, as diagnostics. */
export async function diagnose(t, app, session) {
  if (app) t.diagnostic(app.logs());
  const banner = await session
    ?.execute("const b = document.querySelector('[data-testid=error]'); return b && b.textContent")
    .catch(() => null);
  if (banner) t.diagnostic(`the app said: ${banner}`);
}

/** The trick sentence's opening in the demo (its stance is `supports`, so the trick is a negation). */
export const TRICK = "It is not true that";

/** The demo project with maria as its lead and `annotators` added. */
export function teamProject(project, annotators) {
  demoProject(project);
  cli(["annotators", project, "add", "maria", "--role", "lead"]);
  for (const name of annotators) cli(["annotators", project, "add", name]);
}

/**
 * `name` answers up to `count` evidence items through the CLI, each with real sentence
 * `pick(task_id, real)` (an index into the candidates that are not the trick, clamped).
 */
export function answerEvidence(project, name, count, pick = () => 0) {
  for (let i = 0; i < count; i += 1) {
    const item = nextByCli(project, name, "evidence");
    if (!item) return;
    const real = item.options.filter((o) => !o.text.startsWith(TRICK));
    const chosen = real[Math.max(0, Math.min(pick(item.task_id, real), real.length - 1))];
    submitByCli(project, name, [{ task_id: item.task_id, selected: [chosen.id], duration_ms: 8000 }]);
  }
}

/** A careless annotator: selects every sentence, the trick too, on `count` evidence items (flagged, not counted). */
export function carelessAnswers(project, name = "dan", count = 3) {
  for (let i = 0; i < count; i += 1) {
    const item = nextByCli(project, name, "evidence");
    submitByCli(project, name, [{ task_id: item.task_id, selected: item.options.map((o) => o.id), duration_ms: 900 }]);
  }
}

/**
 * A project at `project` of `claims` and `docs` (objects, written as JSONL into `work`),
 * asking for supporting evidence as the demo does.
 */
export function importedProject(project, work, claims, docs) {
  const claimsFile = join(work, "claims.jsonl");
  const docsFile = join(work, "documents.jsonl");
  writeFileSync(claimsFile, claims.map((c) => JSON.stringify(c)).join("\n") + "\n");
  writeFileSync(docsFile, docs.map((d) => JSON.stringify(d)).join("\n") + "\n");
  cli(["init", project]);
  cli(["settings", project, "--set", "evidence_stance=supports"]);
  cli(["import", project, claimsFile, "--docs", docsFile]);
}
