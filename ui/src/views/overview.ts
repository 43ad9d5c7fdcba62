// The project overview: what the project holds, at a glance.

import { h } from "../dom";
import { count, digitGroups, fileName } from "../format";
import type { Overview } from "../ipc";

interface Tile {
  key: string;
  label: string;
  value: number;
  note?: string;
}

/**
 * A count whose text is the plain integer (tests and copy-paste read it); the thousands
 * groups are separate spans spaced apart by CSS, so people still read 12 345 at a glance.
 */
function countValue(key: string, value: number): HTMLElement {
  return h(
    "div",
    { class: "count", testid: `count-${key}`, title: count(value) },
    ...digitGroups(value).map((g) => h("span", {}, g)),
  );
}

function tile(t: Tile): HTMLElement {
  return h(
    "div",
    { class: "tile" },
    h("div", { class: "tile-label" }, t.label),
    countValue(t.key, t.value),
    t.note ? h("div", { class: "tile-note" }, t.note) : null,
  );
}

function group(title: string, tiles: Tile[]): HTMLElement {
  return h("section", { class: "group" }, h("h2", {}, title), h("div", { class: "tiles" }, ...tiles.map(tile)));
}

function emptyHint(o: Overview): HTMLElement {
  return h(
    "p",
    { class: "hint", testid: "empty-hint" },
    "This project has no claims yet. Import some from a terminal:",
    h("code", { class: "command" }, `factdesk import ${o.path} claims.jsonl --docs documents.jsonl`),
  );
}

export function overviewHead(o: Overview): HTMLElement {
  return h(
    "div",
    { class: "overview-head" },
    h("h1", { testid: "project-name" }, o.name || fileName(o.path)),
    h("p", { class: "path", title: o.path }, o.path),
  );
}

/**
 * The project's counts, grouped; the same test ids wherever they are shown. An annotator
 * gets none from the api (the count of originals would tell which claims are refutations).
 */
export function overviewGroups(o: Overview): HTMLElement {
  const s = o.stats;
  if (s === null) {
    return h("div", { class: "overview-groups", testid: "overview" }, h("p", { class: "hint", testid: "no-counts" }, "The project's counts are the lead's."));
  }
  const data: Tile[] = [
    {
      key: "claims",
      label: "Claims",
      value: s.claims,
      note: `${count(s.root_claims)} originals · ${count(s.refutations)} refutations`,
    },
    { key: "documents", label: "Documents", value: s.documents, note: "evidence sources" },
    { key: "sentences", label: "Sentences", value: s.sentences, note: "in those documents" },
    { key: "candidates", label: "Candidates", value: s.candidates, note: "top-ranked evidence sentences" },
  ];
  const work: Tile[] = [
    { key: "tasks", label: "Tasks", value: s.tasks, note: "evidence, refutation, labelling" },
    { key: "annotators", label: "Annotators", value: s.annotators, note: "people working on tasks" },
    { key: "annotations", label: "Annotations", value: s.annotations, note: "answers given" },
  ];
  return h(
    "div",
    { class: "overview-groups", testid: "overview" },
    s.claims === 0 ? emptyHint(o) : null,
    group("Data", data),
    group("Annotation", work),
  );
}

export function overviewView(o: Overview): HTMLElement {
  return h("main", { class: "overview" }, overviewHead(o), overviewGroups(o));
}
