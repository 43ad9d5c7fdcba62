import { describe, expect, it } from "vitest";
import { startView } from "./start";

const noop = { open: () => {}, create: () => {}, openPath: () => {} };

describe("startView", () => {
  it("lists recent projects and disables missing ones", () => {
    const opened: string[] = [];
    const el = startView(
      [
        { path: "/p/a.fdesk", name: "a", exists: true },
        { path: "/p/gone.fdesk", name: "gone", exists: false },
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

  it("says so when there are none", () => {
    expect(startView([], noop).textContent).toContain("No recent projects yet.");
  });
});
