import { describe, expect, test } from "bun:test";
import { every, realTimers } from "../../../src/platform/io/timers.ts";
import { fakeTimers } from "../../helpers/fake-timers.ts";

describe("timers", () => {
  test("every fires at each multiple of its interval until stopped", () => {
    const t = fakeTimers(1_000);
    const at: number[] = [];
    const stop = every(t, 250, () => at.push(t.now()));
    t.advance(1_000);
    expect(at).toEqual([1_250, 1_500, 1_750, 2_000]);
    stop();
    t.advance(1_000);
    expect(at.length).toBe(4);
    expect(t.pending()).toBe(0);
  });

  test("stopped from inside its own call, every does not re-arm", () => {
    const t = fakeTimers();
    let calls = 0;
    const stop = every(t, 10, () => {
      if (++calls === 2) stop();
    });
    t.advance(100);
    expect([calls, t.pending()]).toEqual([2, 0]);
  });

  test("the fake fires timers in due order, a cancelled one never, and now() is each one's due time", () => {
    const t = fakeTimers();
    const seen: string[] = [];
    t.after(30, () => seen.push(`c@${t.now()}`));
    t.after(10, () => seen.push(`a@${t.now()}`));
    const cancel = t.after(20, () => seen.push("cancelled"));
    t.after(10, () => t.after(5, () => seen.push(`b@${t.now()}`)));
    cancel();
    t.advance(29);
    expect([seen, t.now()]).toEqual([["a@10", "b@15"], 29]);
    t.advance(1);
    expect(seen).toEqual(["a@10", "b@15", "c@30"]);
  });

  test("the real timers fire and cancel", async () => {
    let fired = 0;
    const cancel = realTimers.after(60_000, () => fired++);
    cancel();
    await new Promise<void>((resolve) => realTimers.after(1, resolve));
    expect(fired).toBe(0);
  });
});
