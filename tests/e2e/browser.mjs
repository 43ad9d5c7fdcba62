// A real browser for the browser client's tests: Chromium through chromedriver (Debian's
// chromium and chromium-driver), one session per person (each its own profile, so its
// own cookies), and a TCP relay between browser and server that can drop a connection
// at the worst moment: after the request reached the server, before its answer came back.

import { mkdirSync } from "node:fs";
import { createServer, connect } from "node:net";
import { join } from "node:path";
import { launch } from "./harness.mjs";
import { Session, waitForDriver } from "./webdriver.mjs";

export const chromium = process.env.FACTDESK_CHROMIUM ?? "/usr/bin/chromium";
export const chromedriver = process.env.FACTDESK_CHROMEDRIVER ?? "/usr/bin/chromedriver";

/** chromedriver on a port the system chose; resolves with its address and process. */
export async function startChromedriver(processes) {
  const driver = launch("chromedriver", chromedriver, ["--port=0"], {});
  processes.push(driver);
  for (let i = 0; i < 200; i += 1) {
    const said = /was started successfully on port (\d+)/.exec(driver.log());
    if (said) {
      const base = `http://127.0.0.1:${said[1]}`;
      await waitForDriver(base);
      return base;
    }
    if (driver.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`chromedriver did not start:\n${driver.log()}`);
}

/** A headless Chromium window of `size`, its downloads in `work`/`label`/downloads. */
export async function browserSession(base, work, label, [width, height]) {
  const downloads = join(work, label, "downloads");
  mkdirSync(downloads, { recursive: true });
  const session = await Session.create(base, {
    alwaysMatch: {
      browserName: "chrome",
      "goog:chromeOptions": {
        binary: chromium,
        args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", `--window-size=${width},${height}`, "--lang=en-US", "--font-render-hinting=none"],
        prefs: {
          "download.default_directory": downloads,
          "download.prompt_for_download": false,
          "profile.default_content_setting_values.automatic_downloads": 1,
        },
      },
    },
  });
  session.downloads = downloads;
  await size(session, [width, height]);
  return session;
}

/** Makes the page's viewport `width`×`height` CSS pixels and its colour scheme `scheme`. */
export async function size(session, [width, height], scheme = "light") {
  await session.cmd("POST", "/goog/cdp/execute", {
    cmd: "Emulation.setDeviceMetricsOverride",
    params: { width, height, deviceScaleFactor: 1, mobile: false },
  });
  await session.cmd("POST", "/goog/cdp/execute", {
    cmd: "Emulation.setEmulatedMedia",
    params: { features: [{ name: "prefers-color-scheme", value: scheme }] },
  });
}

/**
 * A relay on a port of its own to `port` on 127.0.0.1. `dropNextAnswerTo(pattern)` makes
 * the relay cut the browser's connection when the server answers the next request whose
 * bytes match `pattern`: the server did the work, the browser never hears it.
 */
export async function startRelay(port) {
  let drop = null;
  const dropped = [];
  const sockets = new Set();
  const relay = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    let armed = false;
    client.on("data", (chunk) => {
      if (drop && drop.test(chunk.toString("latin1"))) {
        armed = true;
        drop = null;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (armed) {
        dropped.push(chunk.toString("latin1").split("\r\n")[0]);
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  await new Promise((r) => relay.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${relay.address().port}`,
    dropNextAnswerTo(pattern) {
      drop = pattern;
    },
    /** The status lines of the answers the relay kept from the browser. */
    dropped,
    close() {
      for (const s of sockets) s.destroy();
      relay.close();
    },
  };
}
