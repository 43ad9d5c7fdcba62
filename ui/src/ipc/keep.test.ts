import { describe, expect, it } from "vitest";
import type { Ack, Answer } from "./bindings";
import { ApiError } from "./error";
import { keptAnswers, onWaitingToSave } from "./keep";

const answer: Answer = { task_id: 7, selected: ["o1"], no_evidence: false, text: null, label: null, comment: null, duration_ms: 1200 };
const down = () => new ApiError({ code: "unavailable", message: "the server cannot be reached", location: null });
const now = async () => undefined;

describe("an answer's key", () => {
  it("is the same on every sending until the answer is acknowledged", async () => {
    const sent: (string | undefined)[] = [];
    let fails = 2;
    const submit = async (a: Answer): Promise<Ack> => {
      sent.push(a.key);
      if (fails-- > 0) throw down();
      return { ack: a.key ?? "", task_id: a.task_id };
    };
    const heard: boolean[] = [];
    const stop = onWaitingToSave((s) => heard.push(s));
    const ack = await keptAnswers(submit, now)(answer);
    stop();
    expect(sent).toHaveLength(3);
    expect(new Set(sent).size).toBe(1);
    expect(ack.ack).toBe(sent[0]);
    expect(sent[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(heard).toEqual([true, false]);
  });

  it("is kept for the same answer sent again after the screen was told it failed", async () => {
    const sent: (string | undefined)[] = [];
    let up = false;
    const submit = async (a: Answer): Promise<Ack> => {
      sent.push(a.key);
      if (!up) throw down();
      return { ack: a.key ?? "", task_id: a.task_id };
    };
    const kept = keptAnswers(submit, now, -1);
    await expect(kept(answer)).rejects.toThrow("cannot be reached");
    up = true;
    // Enter pressed again a few seconds later: another time taken, the same answer.
    await kept({ ...answer, duration_ms: 4800 });
    expect(new Set(sent).size).toBe(1);
    // A different answer, or the next one, has a key of its own.
    await kept({ ...answer, selected: ["o2"] });
    await kept({ ...answer, selected: ["o2"] });
    expect(new Set(sent).size).toBe(3);
  });

  it("is not sent again after a refusal", async () => {
    let calls = 0;
    const submit = async (): Promise<Ack> => {
      calls += 1;
      throw new ApiError({ code: "forbidden", message: "no", location: null });
    };
    await expect(keptAnswers(submit, now)(answer)).rejects.toThrow("no");
    expect(calls).toBe(1);
  });
});
