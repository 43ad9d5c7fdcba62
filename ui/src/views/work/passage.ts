// "Show in document": the option's sentence among its neighbours, in a side panel.

import { h, mount } from "../../dom";
import { errorText } from "../../errors";
import { api, type Passage } from "../../ipc";

/** The passage's sentences as one paragraph, the asked-for sentence marked. */
export function passageText(p: Passage): HTMLElement {
  return h(
    "p",
    { dir: "auto" },
    ...p.sentences.flatMap((s) => [
      s.hit ? h("mark", { class: "passage-hit", testid: "passage-hit" }, s.text) : h("span", {}, s.text),
      " ",
    ]),
  );
}

export function passagePanel(taskId: number, optionId: string, number: number, close: () => void): HTMLElement {
  const body = h("div", { class: "passage-body" }, h("p", { class: "muted" }, "Loading…"));
  const title = h("div", { class: "passage-title", testid: "passage-title" });
  const panel = h(
    "aside",
    { class: "passage", testid: "passage", "aria-label": "Sentence in its document" },
    h(
      "div",
      { class: "passage-head" },
      h("h2", {}, `Sentence ${number} in its document`),
      h("button", { class: "ghost", testid: "passage-close", title: "Close (Esc)", onclick: close }, "Close ", h("kbd", {}, "Esc")),
    ),
    title,
    body,
  );
  api.passage(taskId, optionId).then(
    (p) => {
      mount(title, p.title ?? "");
      // A sentence that came alone (a claim's evidence imported without its document)
      // says so, rather than pass for a one-sentence document.
      const alone = p.sentences.length === 1 ? h("p", { class: "muted small", testid: "passage-alone" }, "No text around this sentence to show.") : null;
      mount(body, passageText(p), alone);
    },
    (e: unknown) => mount(body, h("p", { class: "error-text" }, errorText(e))),
  );
  return panel;
}
