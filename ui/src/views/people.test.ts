import { describe, expect, it, vi } from "vitest";
import type { Overview, Person } from "../ipc";
import { listed, peopleScreen } from "./people";

const overview: Overview = {
  id: "p",
  name: "demo",
  path: "/tmp/demo.fdesk",
  schema_version: 1,
  stats: {
    claims: 3,
    root_claims: 3,
    refutations: 0,
    documents: 1,
    sentences: 9,
    candidates: 9,
    tasks: 0,
    annotations: 0,
    annotators: 2,
  },
};

const key = (k: string) => new KeyboardEvent("keydown", { key: k });

describe("peopleScreen", () => {
  it("signs in by number, and moves focus with the arrows", () => {
    const signIn = vi.fn(async () => null);
    const people = [
      { name: "lead", role: "lead" as const, has_password: true },
      { name: "<b>ana</b>", role: "annotator" as const, has_password: false },
    ];
    const screen = peopleScreen(overview, people, { signIn, addFirst: vi.fn() });
    document.body.replaceChildren(screen.el);
    screen.shown?.();
    // No one is chosen to begin with: Enter opens no one's home.
    expect(document.activeElement?.getAttribute("data-testid")).toBe("who-is-working");
    // From no row either arrow goes to the first, then they move and wrap.
    expect(screen.onKey?.(key("ArrowUp"))).toBe(true);
    expect(document.activeElement?.getAttribute("data-testid")).toBe("person-lead");
    expect(screen.onKey?.(key("ArrowDown"))).toBe(true);
    expect(document.activeElement?.getAttribute("data-testid")).toBe("person-<b>ana</b>");
    expect(screen.onKey?.(key("ArrowDown"))).toBe(true);
    expect(document.activeElement?.getAttribute("data-testid")).toBe("person-lead");
    expect(screen.onKey?.(key("2"))).toBe(true);
    expect(signIn).toHaveBeenCalledWith("<b>ana</b>");
    expect(screen.onKey?.(key("3"))).toBe(false);
    expect(screen.el.querySelector("b")).toBeNull();
    expect(screen.el.querySelector("[data-testid=count-claims]")?.textContent).toBe("3");
  });

  it("asks a person with a password for it, says a wrong one, and signs in with the right one", async () => {
    const signIn = vi.fn(async (_name: string, password?: string | null) =>
      password === "right" ? null : password ? "Wrong password for lead." : "Lead has a password: type it to work as lead.",
    );
    const screen = peopleScreen(overview, [{ name: "lead", role: "lead" as const, has_password: true }], { signIn, addFirst: vi.fn() });
    document.body.replaceChildren(screen.el);
    screen.onKey?.(key("1"));
    await new Promise((r) => setTimeout(r, 0));
    const box = screen.el.querySelector<HTMLInputElement>("[data-testid=who-password-box]");
    expect(box?.type).toBe("password");
    expect(screen.el.querySelector("[data-testid=who-password-problem]")?.textContent).toMatch(/has a password/);
    if (box) box.value = "guess";
    screen.el.querySelector<HTMLButtonElement>("[data-testid=who-password-go]")?.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(screen.el.querySelector("[data-testid=who-password-problem]")?.textContent).toBe("Wrong password for lead.");
    if (box) box.value = "right";
    screen.el.querySelector<HTMLButtonElement>("[data-testid=who-password-go]")?.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(signIn).toHaveBeenLastCalledWith("lead", "right");
  });

  it("lists a lead without a password last and gives them no digit: no single key opens the lead's view", () => {
    const signIn = vi.fn(async () => null);
    const maria: Person = { name: "maria", role: "lead", has_password: false };
    const ana: Person = { name: "ana", role: "annotator", has_password: false };
    const ben: Person = { name: "ben", role: "annotator", has_password: false };
    const people = [maria, ana, ben];
    expect(listed(people)).toEqual({ order: [ana, ben, maria], keyed: 2 });
    const screen = peopleScreen(overview, people, { signIn, addFirst: vi.fn() });
    document.body.replaceChildren(screen.el);
    screen.shown?.();
    const rows = [...screen.el.querySelectorAll<HTMLElement>(".person")];
    expect(rows.map((r) => [r.dataset["testid"], r.querySelector("kbd")?.textContent ?? null])).toEqual([
      ["person-ana", "1"],
      ["person-ben", "2"],
      ["person-maria", null],
    ]);
    expect(screen.onKey?.(key("3"))).toBe(false);
    expect(screen.onKey?.(key("1"))).toBe(true);
    expect(signIn).toHaveBeenLastCalledWith("ana");
    // Still reached with the arrows (then Enter, as a focused button takes it) or a click,
    // but never by one stray key: from no row, up goes to the first person, not the last.
    (document.activeElement as HTMLElement | null)?.blur();
    screen.onKey?.(key("ArrowUp"));
    expect(document.activeElement?.getAttribute("data-testid")).toBe("person-ana");
    screen.onKey?.(key("ArrowUp"));
    expect(document.activeElement?.getAttribute("data-testid")).toBe("person-maria");
    screen.el.querySelector<HTMLButtonElement>("[data-testid=person-maria]")?.click();
    expect(signIn).toHaveBeenLastCalledWith("maria");
    // A lead with a password keeps their place and digit: choosing them asks for it.
    expect(listed([{ ...maria, has_password: true }, ana]).keyed).toBe(2);
  });

  it("asks for the first person when there is no one", () => {
    const addFirst = vi.fn();
    const screen = peopleScreen(overview, [], { signIn: vi.fn(), addFirst });
    const name = screen.el.querySelector<HTMLInputElement>("[data-testid=new-person-name]");
    expect(name).not.toBeNull();
    if (name) name.value = "  Mia ";
    screen.el.querySelector<HTMLButtonElement>("[data-testid=add-person]")?.click();
    expect(addFirst).toHaveBeenCalledWith("Mia");
  });
});
