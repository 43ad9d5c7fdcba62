import { describe, expect, it, vi } from "vitest";
import { oneAtATime } from "./once";

describe("oneAtATime", () => {
  it("ignores a second call while the first runs, and takes one after it", async () => {
    let finish: () => void = () => {};
    const act = vi.fn(() => new Promise<void>((r) => (finish = r)));
    const once = oneAtATime(act);
    const first = once();
    void once();
    expect(act).toHaveBeenCalledTimes(1);
    finish();
    await first;
    void once();
    expect(act).toHaveBeenCalledTimes(2);
    finish();
  });

  it("takes calls again after a failure", async () => {
    const act = vi.fn().mockRejectedValueOnce(new Error("no")).mockResolvedValueOnce(undefined);
    const once = oneAtATime(act);
    await expect(once()).rejects.toThrow("no");
    await once();
    expect(act).toHaveBeenCalledTimes(2);
  });
});
