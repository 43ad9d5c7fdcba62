// A real browser for the browser client's tests: Chromium through chromedriver (Debian's
// chromium and chromium-driver) in CI, Firefox ESR through geckodriver or WebKitGTK's
// MiniBrowser through WebKitWebDriver on demand (FACTDESK_BROWSER); one session per
// person (each its own profile, so its own cookies), and a TCP relay between browser and server that can drop a connection
// at the worst moment: after the request reached the server, before its answer came back.

import { mkdirSync } from "node:fs";
import { createServer, connect } from "node:net";
import { join } from "node:path";
import { launch, startDisplay } from "./harness.mjs";
import { Session, waitForDriver } from "./webdriver.mjs";

/** Which browser drives the tests: chromium (CI), firefox (geckodriver) or webkit
 * (WebKitWebDriver with WebKitGTK's MiniBrowser); see scripts/browser-tests. */
export const browserKind = process.env.FACTDESK_BROWSER ?? "chromium";

const chromium = process.env.FACTDESK_CHROMIUM ?? "/usr/bin/chromium";
const firefox = process.env.FACTDESK_FIREFOX ?? "/usr/bin/firefox-esr";
const miniBrowser = process.env.FACTDESK_MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** The browser's WebDriver server on a free port; resolves with its address. */
export async function startBrowserDriver(processes, port) {
  const [label, command, args, env] = {
    chromium: ["chromedriver", process.env.FACTDESK_CHROMEDRIVER ?? "/usr/bin/chromedriver", [`--port=${port}`], {}],
    firefox: ["geckodriver", process.env.FACTDESK_GECKODRIVER ?? "geckodriver", ["--port", String(port)], {}],
    webkit: ["WebKitWebDriver", "WebKitWebDriver", [`--port=${port}`], {}],
  }[browserKind] ?? [];
  if (!command) throw new Error(`FACTDESK_BROWSER=${browserKind}: chromium, firefox or webkit`);
  if (browserKind === "webkit") {
    const display = await startDisplay();
    if (display.process) processes.push(display.process);
    env.DISPLAY = display.name;
  }
  const driver = launch(label, command, args, env);
  processes.push(driver);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForDriver(base, 20_000);
  } catch (e) {
    throw new Error(`${e.message}\n${driver.log()}`);
  }
  return base;
}

function capabilities(downloads, [width, height]) {
  if (browserKind === "firefox") {
    return {
      browserName: "firefox",
      "moz:firefoxOptions": {
        binary: firefox,
        args: ["-headless", "-width", String(width), "-height", String(height)],
        prefs: {
          "browser.download.folderList": 2,
          "browser.download.dir": downloads,
          "browser.download.useDownloadDir": true,
          "browser.download.always_ask_before_handling_new_types": false,
          "intl.accept_languages": "en-US",
        },
      },
    };
  }
  if (browserKind === "webkit") {
    return { browserName: "MiniBrowser", "webkitgtk:browserOptions": { binary: miniBrowser, args: ["--automation"] } };
  }
  return {
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
  };
}

/** A browser window of `size`, its downloads in `work`/`label`/downloads. */
export async function browserSession(base, work, label, windowSize) {
  const downloads = join(work, label, "downloads");
  mkdirSync(downloads, { recursive: true });
  const session = await Session.create(base, { alwaysMatch: capabilities(downloads, windowSize) });
  session.downloads = downloads;
  await size(session, windowSize);
  if (browserKind === "chromium") {
    // Headless Chromium cancels a file chooser at once (there is no dialog to show):
    // held open instead, it waits for the files a test gives its input.
    await session.cmd("POST", "/goog/cdp/execute", { cmd: "Page.setInterceptFileChooserDialog", params: { enabled: true } });
  }
  return session;
}

/** Makes the page's viewport `width`×`height` CSS pixels and, in Chromium, its colour
 * scheme `scheme` (screenshots are taken there). */
export async function size(session, [width, height], scheme = "light") {
  if (browserKind !== "chromium") {
    await session.cmd("POST", "/window/rect", { width, height });
    return;
  }
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
