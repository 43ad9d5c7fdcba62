// A tiny W3C WebDriver client over fetch: just what the end-to-end tests use.

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** WebDriver's codes for the keys that are not characters. */
export const Key = {
  Enter: "\uE007",
  Tab: "\uE004",
  Backspace: "\uE003",
  Escape: "\uE00C",
  ArrowLeft: "\uE012",
  ArrowUp: "\uE013",
  ArrowRight: "\uE014",
  ArrowDown: "\uE015",
  Control: "\uE009",
};

export class WebDriverError extends Error {
  constructor(method, path, status, value) {
    super(`${method} ${path} -> ${status}: ${value?.error ?? ""} ${value?.message ?? JSON.stringify(value)}`);
    this.name = "WebDriverError";
    this.error = value?.error;
  }
}

async function request(base, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new WebDriverError(method, path, res.status, json.value);
  return json.value;
}

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
    /** The selector each element was found by, to find it again once the screen replaced it. */
    this.selectors = new Map();
  }

  /** Starts a session; `capabilities` is the W3C `capabilities` object. */
  static async create(base, capabilities) {
    const value = await request(base, "POST", "/session", { capabilities });
    return new Session(base, value.sessionId);
  }

  cmd(method, path, body) {
    return request(this.base, method, `/session/${this.id}${path}`, body);
  }

  /**
   * Finds the element matching `css`. WebKit answers "stale element reference" to the
   * find itself when a live screen replaces the node while it makes the handle: look
   * again (a missing element is still an error at once).
   */
  async find(css) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const value = await this.cmd("POST", "/element", { using: "css selector", value: css });
        const element = value[ELEMENT];
        this.selectors.set(element, css);
        return element;
      } catch (e) {
        if (!(e instanceof WebDriverError) || e.error !== "stale element reference" || attempt >= 5) throw e;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /**
   * Runs `command` on `element`. Live screens re-render (the start screen as its recent
   * projects arrive, a queue read again), and WebKit then answers "stale element
   * reference" for an element found a moment before: find it again by the selector it
   * was found by (as a person looks again), and run the command on the new one.
   *
   * Only that answer is retried, and it is safe to retry even for a click or typed keys:
   * WebDriver looks the element up before it does anything with it (W3C WebDriver,
   * Element Click and Element Send Keys: "get a known element" comes before any input
   * is dispatched, and WebKitWebDriver computes the element's layout or focuses it, which
   * is where staleness is found, before it sends the mouse or key events). So a stale
   * answer means no click and no key reached the page. Any other error (a timeout, an
   * element not interactable, an unknown error after input went out) is thrown at once:
   * what it did, if anything, is never done twice.
   */
  async onElement(element, command) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await command(element);
      } catch (e) {
        const css = this.selectors.get(element);
        if (!(e instanceof WebDriverError) || e.error !== "stale element reference" || css === undefined || attempt >= 5) {
          throw e;
        }
        element = await this.waitFor(css, 5_000);
      }
    }
  }

  /**
   * Polls for an element until it shows up or `timeoutMs` passes. A live screen that is
   * replaced while WebKit looks makes it answer "stale element reference": look again.
   */
  async waitFor(css, timeoutMs = 30_000, intervalMs = 250) {
    const deadline = Date.now() + timeoutMs;
    const again = new Set(["no such element", "stale element reference"]);
    for (;;) {
      try {
        return await this.find(css);
      } catch (e) {
        if (!(e instanceof WebDriverError) || !again.has(e.error) || Date.now() > deadline) {
          throw e;
        }
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }

  async findAll(css) {
    const value = await this.cmd("POST", "/elements", { using: "css selector", value: css });
    return value.map((v) => v[ELEMENT]);
  }

  /**
   * Polls until `check()` returns something truthy, and returns it. A check that reads
   * an element may meet it not there yet or replaced meanwhile ("no such element",
   * "stale element reference"): that is looked at again on the next poll. Any other
   * error (a script's "javascript error", a refused command) is thrown at once.
   */
  async until(what, check, timeoutMs = 15_000, intervalMs = 100) {
    const deadline = Date.now() + timeoutMs;
    const again = new Set(["no such element", "stale element reference"]);
    let last;
    for (;;) {
      try {
        last = await check();
        if (last) return last;
      } catch (e) {
        if (!(e instanceof WebDriverError) || !again.has(e.error) || Date.now() > deadline) throw e;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }

  attribute(element, name) {
    return this.onElement(element, (e) => this.cmd("GET", `/element/${e}/attribute/${encodeURIComponent(name)}`));
  }

  /**
   * Types `text` with the keyboard, into whatever has focus, as a person would: one key
   * down and up per character (Key.* for Enter, Backspace and the like).
   */
  keys(text) {
    const actions = [...text].flatMap((key) => [
      { type: "keyDown", value: key },
      { type: "keyUp", value: key },
    ]);
    return this.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
  }

  /** Presses `keys` together (Key.Control and "a": select all), then lets go. */
  chord(...keys) {
    const actions = [
      ...keys.map((value) => ({ type: "keyDown", value })),
      ...keys.reverse().map((value) => ({ type: "keyUp", value })),
    ];
    return this.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
  }

  /** Runs `script` (a function body; `arguments` holds `args`) in the page and returns its value. */
  execute(script, args = []) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }

  text(element) {
    return this.onElement(element, (e) => this.cmd("GET", `/element/${e}/text`));
  }

  click(element) {
    return this.onElement(element, (e) => this.cmd("POST", `/element/${e}/click`, {}));
  }

  /** Finds `css` and clicks it (found again should the screen replace it first; see onElement). */
  async clickOn(css) {
    return this.click(await this.find(css));
  }

  /**
   * Clicks `css` once it has stayed in one place for 200 ms. A screen that fills its
   * tables after it shows moves what is below them as each one arrives, and WebDriver's
   * click lands where the element was when it measured it: a person looks first.
   */
  async clickWhenStill(css, timeoutMs = 10_000) {
    const where = () =>
      this.execute("const r = document.querySelector(arguments[0])?.getBoundingClientRect(); return r ? `${r.left},${r.top},${r.width}` : null;", [css]);
    let last = await where();
    await this.until(
      `${css} in one place`,
      async () => {
        await new Promise((r) => setTimeout(r, 200));
        const now = await where();
        const still = now !== null && now === last;
        last = now;
        return still;
      },
      timeoutMs,
      0,
    );
    return this.clickOn(css);
  }

  clear(element) {
    return this.onElement(element, (e) => this.cmd("POST", `/element/${e}/clear`, {}));
  }

  sendKeys(element, text) {
    return this.onElement(element, (e) => this.cmd("POST", `/element/${e}/value`, { text }));
  }

  /** Runs `script` in the page; it gets `args` and finishes by calling its last argument. */
  executeAsync(script, args = []) {
    return this.cmd("POST", "/execute/async", { script, args });
  }

  /** Resolves once the page has painted what the DOM holds now. */
  afterPaint() {
    return this.executeAsync(
      "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
    );
  }

  /** A PNG of the window. */
  async screenshot() {
    return Buffer.from(await this.cmd("GET", "/screenshot"), "base64");
  }

  delete() {
    return this.cmd("DELETE", "");
  }
}

/** Waits until the driver answers /status, or throws after `timeoutMs`. */
export async function waitForDriver(base, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${base}/status`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`no WebDriver server at ${base} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
