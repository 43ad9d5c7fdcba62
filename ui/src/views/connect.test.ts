import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../ipc";
import { connectScreen, missing } from "./connect";

const q = <T extends HTMLElement>(el: HTMLElement, id: string): T => {
  const found = el.querySelector<T>(`[data-testid="${id}"]`);
  if (!found) throw new Error(`${id} is missing`);
  return found;
};

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("connectScreen", () => {
  it("says what is missing before sending anything", () => {
    expect(missing(" ", "ana", "pw")).toBe("Give the server's address.");
    expect(missing("https://x", "", "pw")).toBe("Give your name.");
    expect(missing("https://x", "ana", "")).toBe("Give your password.");
    expect(missing("https://x", "ana", "pw")).toBeNull();
  });

  it("labels every field, sends what was typed and shows the server's refusal", async () => {
    const connect = vi.fn(() =>
      Promise.reject(new ApiError({ code: "unauthorized", message: "wrong name or password", location: null })),
    );
    const screen = connectScreen({ url: "http://127.0.0.1:4470", name: "ana" }, { connect, back: () => {} });
    document.body.replaceChildren(screen.el);
    for (const id of ["server-url", "server-name", "server-password"]) {
      const field = q<HTMLInputElement>(screen.el, id);
      expect(screen.el.querySelector(`label[for="${field.id}"]`)?.textContent).toBeTruthy();
    }
    screen.shown?.();
    expect(document.activeElement).toBe(q(screen.el, "server-password"));
    q<HTMLInputElement>(screen.el, "server-password").value = "secret-pw";
    q<HTMLFormElement>(screen.el, "connect-form").dispatchEvent(new Event("submit", { cancelable: true }));
    await flush();
    expect(connect).toHaveBeenCalledWith("http://127.0.0.1:4470", "ana", "secret-pw");
    expect(q(screen.el, "connect-error").textContent).toBe("Wrong name or password.");
    expect(q<HTMLInputElement>(screen.el, "server-password").value).toBe("");
    expect(q<HTMLButtonElement>(screen.el, "connect").disabled).toBe(false);
  });

  it("goes back with Esc, from a field too", () => {
    const back = vi.fn();
    const screen = connectScreen({ reason: "Your session ended." }, { connect: () => Promise.resolve(), back });
    expect(q(screen.el, "connect-reason").textContent).toBe("Your session ended.");
    q(screen.el, "server-url").dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(back).toHaveBeenCalledTimes(1);
  });
});
