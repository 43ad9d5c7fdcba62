import { describe, expect, it } from "vitest";
import type { ItemOption } from "../../ipc";
import { canSubmit, emptySelection, fromPrevious, moveCursor, toggle, toggleNoEvidence } from "./selection";

const options: ItemOption[] = ["oa", "ob", "oc"].map((id) => ({ id, text: id, pieces: [{ text: id, hit: false }] }));

describe("selection", () => {
  it("toggles options on and off, keeping display order", () => {
    let s = toggle(emptySelection(), options, 2);
    s = toggle(s, options, 0);
    expect(s.selected).toEqual(["oa", "oc"]);
    expect(s.cursor).toBe(0);
    s = toggle(s, options, 2);
    expect(s.selected).toEqual(["oa"]);
  });

  it("makes sentences and no evidence exclude each other", () => {
    let s = toggle(emptySelection(), options, 1);
    s = toggleNoEvidence(s);
    expect(s).toMatchObject({ selected: [], noEvidence: true });
    s = toggle(s, options, 0);
    expect(s).toMatchObject({ selected: ["oa"], noEvidence: false });
  });

  it("can be submitted with a sentence or no evidence, not with nothing", () => {
    expect(canSubmit(emptySelection())).toBe(false);
    expect(canSubmit(toggle(emptySelection(), options, 0))).toBe(true);
    expect(canSubmit(toggleNoEvidence(emptySelection()))).toBe(true);
    expect(canSubmit(toggleNoEvidence(toggleNoEvidence(emptySelection())))).toBe(false);
  });

  it("ignores an index with no option", () => {
    const s = emptySelection();
    expect(toggle(s, options, 7)).toBe(s);
  });

  it("starts from the earlier answer when going back", () => {
    const prev = { selected: ["oc", "ob", "gone"], no_evidence: false, text: null, label: null, comment: null };
    expect(fromPrevious(prev, options)).toEqual({ selected: ["ob", "oc"], noEvidence: false, cursor: 1 });
    const none = { ...prev, selected: [], no_evidence: true };
    expect(fromPrevious(none, options)).toEqual({ selected: [], noEvidence: true, cursor: 0 });
    expect(fromPrevious(null, options)).toEqual(emptySelection());
  });

  it("wraps the cursor around", () => {
    expect(moveCursor(emptySelection(), 3, -1).cursor).toBe(2);
    expect(moveCursor({ ...emptySelection(), cursor: 2 }, 3, 1).cursor).toBe(0);
    expect(moveCursor(emptySelection(), 0, 1).cursor).toBe(0);
  });
});
