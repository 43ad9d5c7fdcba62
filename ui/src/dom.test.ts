import { describe, expect, it } from "vitest";
import { h, mount, textDirection } from "./dom";

describe("h", () => {
  it("renders untrusted markup as text, never as elements", () => {
    const hostile = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;
    const el = h("p", {}, hostile);
    expect(el.textContent).toBe(hostile);
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector("script")).toBeNull();
    expect(el.children.length).toBe(0);
    expect((window as unknown as Record<string, unknown>)["__pwned"]).toBeUndefined();
  });

  it("keeps hostile text inert in attributes too", () => {
    const el = h("div", { title: `"><img src=x onerror=alert(1)>` }, "ok");
    expect(el.getAttribute("title")).toBe(`"><img src=x onerror=alert(1)>`);
    expect(el.querySelector("img")).toBeNull();
  });

  it("sets test ids, classes, roles and click handlers", () => {
    let clicked = 0;
    const el = h("button", { class: "primary", testid: "go", role: "link", onclick: () => clicked++ }, "Go");
    el.click();
    expect(el.dataset["testid"]).toBe("go");
    expect(el.className).toBe("primary");
    expect(el.getAttribute("role")).toBe("link");
    expect(clicked).toBe(1);
  });

  it("skips absent attributes and children", () => {
    const el = h("button", { disabled: false, title: undefined }, null, false, undefined, "x", 0);
    expect(el.disabled).toBe(false);
    expect(el.hasAttribute("title")).toBe(false);
    expect(el.textContent).toBe("x0");
  });

  it("mount replaces the content", () => {
    const root = h("div", {}, "old", h("i", {}, "gone"));
    mount(root, "a", h("b", {}, "<c>"), 3);
    expect(root.textContent).toBe("a<c>3");
    expect(root.querySelector("i")).toBeNull();
  });
});

describe("textDirection", () => {
  it("follows the first strong letter, as dir=auto does", () => {
    expect(textDirection("افتُتح جسر النهر عام 2019.")).toBe("rtl");
    expect(textDirection("2019: افتُتح الجسر")).toBe("rtl");
    expect(textDirection("« שלום »")).toBe("rtl");
    expect(textDirection("The bridge opened in 2019 (افتُتح).")).toBe("ltr");
    expect(textDirection("橋の交通量")).toBe("ltr");
    expect(textDirection("2019 — 🚗")).toBe("ltr");
  });
});
