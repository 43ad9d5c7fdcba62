// The problems annotators reported on items they could not answer, on the lead's home:
// each with the claim's number, the kind of work, who wrote it and when; "Seen" takes it
// off the list. Shown only while there are some.

import { h, mount } from "../dom";
import { claimNumber, momentText } from "../format";
import { api, type ProblemReport } from "../ipc";
import { KIND_TITLES } from "./work/chrome";

/** One report as the list shows it: "#24 · Evidence · ana, 30 Nov 2026, 14:02". */
export function reportHead(r: ProblemReport): string {
  return `${claimNumber(r.claim_number)} · ${KIND_TITLES[r.kind]} · ${r.annotator}, ${momentText(r.at)}`;
}

export function problemsPanel(fail: (e: unknown) => void): { el: HTMLElement; load: () => void } {
  const el = h("section", { class: "panel problems-panel", testid: "problem-reports" });
  el.hidden = true;

  async function seen(r: ProblemReport): Promise<void> {
    try {
      await api.markProblemSeen(r.id);
      await load();
    } catch (e) {
      fail(e);
    }
  }

  async function load(): Promise<void> {
    const list = await api.problemReports();
    el.hidden = list.length === 0;
    mount(
      el,
      h("h3", {}, `Reported problems (${list.length})`),
      h("p", { class: "muted small" }, "Items annotators could not answer went back to the pool with these notes."),
      h(
        "ul",
        { class: "problems" },
        ...list.map((r) =>
          h(
            "li",
            { class: "problem", testid: `problem-${r.id}` },
            h("div", { class: "problem-head muted small" }, reportHead(r)),
            h("div", { class: "problem-claim", dir: "auto" }, r.claim),
            h("div", { class: "problem-text", dir: "auto" }, `“${r.text}”`),
            h("button", { class: "ghost small", testid: `problem-seen-${r.id}`, onclick: () => void seen(r) }, "Seen"),
          ),
        ),
      ),
    );
  }

  return { el, load: () => void load().catch(fail) };
}
