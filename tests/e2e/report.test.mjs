// End to end: `factdesk report` on a demo project annotated with `factdesk submit` opens
// in headless Chromium with no network requests and no console errors, and shows the
// figures of its JSON. Leaves a screenshot in docs/screenshots/report.png.
// Needs the CLI built (cargo build -p factdesk-cli) and Debian's chromium and
// chromium-driver (scripts/setup installs them; FACTDESK_CHROMIUM and
// FACTDESK_CHROMEDRIVER point elsewhere).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { cli, demoProject, repo, stop } from "./harness.mjs";
import { Session, waitForDriver } from "./webdriver.mjs";

const chromium = process.env.FACTDESK_CHROMIUM ?? "/usr/bin/chromium";
const chromedriver = process.env.FACTDESK_CHROMEDRIVER ?? "/usr/bin/chromedriver";

/** A seeded generator of numbers in [0, 1), so the project is the same every run. */
function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Four annotators label every claim and verify every imported refutation, each agreeing
 * with a hidden "truth" at their own rate, with a few seconds per answer.
 */
function annotate(project) {
  const created = (kind) => {
    const out = cli(["tasks", project, "--kind", kind, "--overlap", "4", "--json"]);
    return JSON.parse(out);
  };
  const label = created("label");
  const verify = created("verify");
  const kinds = [
    { count: label.created, first: 1, labels: ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO", "FAILED"], weights: [0.5, 0.3, 0.15, 0.05] },
    { count: verify.created, first: label.created + 1, labels: ["contradicts", "does_not_contradict", "malformed"], weights: [0.7, 0.25, 0.05] },
  ];
  const random = seeded(7);
  const pick = (labels, weights) => {
    let r = random();
    for (let i = 0; i < labels.length; i += 1) {
      r -= weights[i];
      if (r < 0) return labels[i];
    }
    return labels[labels.length - 1];
  };
  const truths = kinds.map((k) => Array.from({ length: k.count }, () => pick(k.labels, k.weights)));
  // Each item is served before it is answered, as the project takes answers only on
  // items given to their annotator.
  for (const [name, accuracy] of [["ana", 0.9], ["ben", 0.8], ["cy", 0.65], ["dee", 0.85]]) {
    cli(["annotators", project, "add", name]);
    kinds.forEach((k, i) => {
      const kind = i === 0 ? "label" : "verify";
      for (let n = 0; n < k.count; n += 1) {
        const item = JSON.parse(cli(["next", project, "--as", name, "--kind", kind, "--json"])).item;
        if (!item) break;
        const t = item.task_id - k.first;
        const answer = random() < accuracy ? truths[i][t] : k.labels[Math.floor(random() * k.labels.length)];
        const line = JSON.stringify({ task_id: item.task_id, label: answer, duration_ms: 3000 + Math.floor(random() * 9000) });
        cli(["submit", project, "--as", name], line + "\n");
      }
    });
  }
}

/** chromedriver on a free port, in its own process group; stop() ends it. */
async function startChromedriver() {
  const port = Number(process.env.FACTDESK_CHROMEDRIVER_PORT ?? 9515);
  let output = "";
  const child = spawn(chromedriver, [`--port=${port}`], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  child.on("error", (e) => (output += `could not start ${chromedriver}: ${e.message}\n`));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForDriver(url, 20_000);
  } catch (e) {
    await stop(child);
    throw new Error(`${e.message}\n${output}`);
  }
  return { url, child, log: () => output };
}

test("the report opens in headless Chromium with no requests and no console errors", async (t) => {
  const work = mkdtempSync(join(tmpdir(), "factdesk-report-"));
  const project = join(work, "demo.fdesk");
  const page = join(work, "report.html");
  const json = join(work, "report.json");
  let driver;
  let session;
  try {
    demoProject(project);
    annotate(project);
    cli(["report", project, "--out", page, "--json", json]);
    const report = JSON.parse(readFileSync(json, "utf8"));
    assert.equal(report.agreement.kinds.length, 2, "label and verify agreement expected");

    driver = await startChromedriver();
    session = await Session.create(driver.url, {
      alwaysMatch: {
        browserName: "chrome",
        "goog:chromeOptions": {
          binary: chromium,
          args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900", "--hide-scrollbars"],
        },
        "goog:loggingPrefs": { browser: "ALL", performance: "ALL" },
      },
    });
    const url = pathToFileURL(page).href;
    await session.cmd("POST", "/url", { url });
    await session.until("the page", async () => (await session.execute("return document.readyState")) === "complete");

    // What the page shows is the JSON's.
    const heading = await session.execute("return document.querySelector('h1').textContent");
    assert.equal(heading, "Agreement report: demo");
    // The page writes a negative figure with a true minus, as the dashboard does.
    const fleiss = report.agreement.kinds[0].fleiss.value.toFixed(3).replace(/^-/, "\u2212");
    const text = await session.execute("return document.body.innerText");
    assert.ok(text.includes(fleiss), `Fleiss' kappa ${fleiss} is not on the page`);
    const charts = await session.execute("return document.querySelectorAll('svg').length");
    assert.ok(charts >= 6, `only ${charts} charts`);

    // No network: the only request is the page itself.
    const performance = await session.cmd("POST", "/se/log", { type: "performance" });
    const requested = performance
      .map((entry) => JSON.parse(entry.message).message)
      .filter((m) => m.method === "Network.requestWillBeSent")
      .map((m) => m.params.request.url);
    assert.ok(requested.includes(url), `the performance log saw no request for the page: ${requested}`);
    assert.deepEqual(
      requested.filter((u) => u !== url),
      [],
      "the report made requests",
    );
    // No console errors (nor warnings).
    const console = await session.cmd("POST", "/se/log", { type: "browser" });
    assert.deepEqual(
      console.filter((e) => e.level === "SEVERE" || e.level === "WARNING"),
      [],
      "the console has errors",
    );
    // The console log does catch errors: one written now shows up.
    await session.execute("console.error('probe')");
    const probe = await session.cmd("POST", "/se/log", { type: "browser" });
    assert.ok(probe.some((e) => e.level === "SEVERE" && e.message.includes("probe")), "the console log is not being read");

    // The whole page in one screenshot.
    const height = await session.execute("return Math.ceil(document.documentElement.scrollHeight)");
    await session.cmd("POST", "/window/rect", { width: 1280, height: Math.min(height + 120, 8000) });
    const png = Buffer.from(await session.cmd("GET", "/screenshot"), "base64");
    assert.ok(png.length > 20_000, `the screenshot is only ${png.length} bytes`);
    const dir = join(repo, "docs", "screenshots");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "report.png"), png);
  } catch (e) {
    if (driver) t.diagnostic(driver.log());
    throw e;
  } finally {
    await session?.cmd("DELETE", "").catch(() => {});
    if (driver) await stop(driver.child);
    rmSync(work, { recursive: true, force: true });
  }
});
