// End to end: imported web text with markup in it (assets/demo, doc-untrusted-page) is
// shown as text in the real app, in an evidence item, its passage and search results,
// and none of it runs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { cli, demoProject, saveScreenshot } from "./harness.mjs";
import { inApp } from "./screens.mjs";
import { itemReady, nextByCli, signInByKeys, submitByCli, textOf, tid } from "./steps.mjs";
import { Key } from "./webdriver.mjs";

const CLAIM = "The Open Harbour Archive has saved roughly 42,000 web pages since 2015.";

/** What would be there had any of the markup been parsed and run. */
const INSPECT = `
  const app = document.getElementById("app");
  return {
    pwned: typeof window.__pwned,
    images: app.querySelectorAll("img").length,
    scripts: app.querySelectorAll("script").length,
    jsLinks: app.querySelectorAll("a[href^='javascript']").length,
    anyLinks: app.querySelectorAll("a").length,
    text: app.innerText,
  };`;

function assertInert(seen, where) {
  assert.equal(seen.pwned, "undefined", `a script ran (${where})`);
  assert.equal(seen.images, 0, `an <img> element exists (${where})`);
  assert.equal(seen.scripts, 0, `a <script> element exists (${where})`);
  assert.equal(seen.jsLinks, 0, `a javascript: link exists (${where})`);
}

/**
 * The demo with uma answering through the CLI until demo-027 comes up, left reserved (an
 * unfinished item is the first one the app shows); returns where its hostile candidate is.
 */
function untrustedProject(project) {
  demoProject(project);
  cli(["annotators", project, "add", "uma", "--role", "lead"]);
  cli(["tasks", project, "--kind", "evidence", "--overlap", "1"]);
  // Answer through the CLI until demo-027 comes up, and leave it reserved: an
  // unfinished item is the first one the app shows.
  let item = nextByCli(project, "uma");
  for (let i = 0; item && item.claim !== CLAIM && i < 60; i += 1) {
    submitByCli(project, "uma", [{ task_id: item.task_id, no_evidence: true }]);
    item = nextByCli(project, "uma");
  }
  assert.equal(item?.claim, CLAIM, "demo-027 never came up");
  const hostile = item.options.findIndex((o) => o.text.includes("<script>"));
  assert.ok(hostile >= 0, "a candidate of demo-027 carries the <script> fragment");
  return hostile;
}

test("markup in imported documents is shown as text and never runs", async (t) => {
  await inApp(t, { make: untrustedProject, size: null }, async (session, { made: hostile }) => {
    await session.waitFor(tid("person-uma"), 30_000);
    await signInByKeys(session, "uma");
    await session.keys("1");
    await session.waitFor(tid("option-1"));
    await itemReady(session);
    assert.equal(await textOf(session, tid("item-claim")), CLAIM);

    // The rendered text (innerText): WebKitWebDriver's element text of a row holding one
    // long unmarked piece came back as its key alone, though the page shows the sentence.
    const option = await session.execute("return document.querySelector(arguments[0]).innerText", [tid(`option-${hostile + 1}`)]);
    assert.match(option, /<script>window\.__pwned = 1<\/script>/, "the fragment is visible as text");
    assertInert(await session.execute(INSPECT), "evidence item");

    // The passage around it holds the <img onerror> and javascript: link sentences too.
    await session.keys(String(hostile + 1));
    await session.keys("d");
    await session.waitFor(tid("passage-hit"));
    const passage = await session.until("the passage text", () => textOf(session, tid("passage")));
    assert.ok(passage.includes(`<img src=x onerror="window.__pwned = 2">`), passage);
    assert.ok(passage.includes(`<a href="javascript:window.__pwned = 3">click here</a>`), passage);
    assertInert(await session.execute(INSPECT), "passage");
    await session.keys(Key.Escape);

    // Search results for the markup itself.
    await session.keys("/");
    await session.keys(`__pwned${Key.Enter}`);
    await session.waitFor(tid("search-hit"));
    const hits = await session.findAll(tid("search-hit-text"));
    const texts = await Promise.all(hits.map((h) => session.text(h)));
    assert.ok(texts.some((x) => x.includes("<script>window.__pwned = 1</script>")), texts.join("\n"));
    assert.ok(texts.some((x) => x.includes(`<img src=x onerror="window.__pwned = 2">`)), texts.join("\n"));
    const seen = await session.execute(INSPECT);
    assertInert(seen, "search results");
    assert.ok(seen.text.includes("<script>"), "the literal <script> is on screen as text");
    assert.equal(seen.anyLinks, 0, "the UI makes no links of imported text");
    await saveScreenshot(session, "search.png");
  });
});
