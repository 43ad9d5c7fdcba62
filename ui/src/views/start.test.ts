import { describe, expect, it } from "vitest";
import { startView } from "./start";

const noop = { open: () => {}, create: () => {}, openPath: () => {}, connect: () => {} };

describe("startView", () => {
  it("lists recent projects and disables missing ones", () => {
    const opened: string[] = [];
    const el = startView(
      [
        { path: "/p/a.fdesk", name: "a", exists: true, person: null },
        { path: "/p/gone.fdesk", name: "gone", exists: false, person: null },
      ],
      { ...noop, openPath: (p) => opened.push(p) },
    );
    const buttons = el.querySelectorAll<HTMLButtonElement>(".recent-item");
    expect(buttons.length).toBe(2);
    expect(buttons[1]?.disabled).toBe(true);
    expect(buttons[1]?.textContent).toContain("missing");
    buttons[0]?.click();
    expect(opened).toEqual(["/p/a.fdesk"]);
  });

  it("opens a recent team server's connect form with its name, and offers to connect to a new one", () => {
    const asked: (string | undefined)[] = [];
    const server = { path: "https://team.example.org", name: "covid", exists: true, person: "ana" };
    const el = startView([server], { ...noop, connect: (r) => asked.push(r?.person ?? undefined) });
    const item = el.querySelector<HTMLButtonElement>(".recent-item");
    expect(item?.textContent).toContain("ana at https://team.example.org");
    expect(el.querySelector('[data-testid="recent-server"]')).not.toBeNull();
    item?.click();
    el.querySelector<HTMLButtonElement>('[data-testid="connect-server"]')?.click();
    expect(asked).toEqual(["ana", undefined]);
  });

  it("says so when there are none", () => {
    expect(startView([], noop).textContent).toContain("No recent projects yet.");
  });
});
