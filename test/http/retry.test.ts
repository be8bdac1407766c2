import { describe, expect, test } from "bun:test";
import { backoffDelay, withRetry, type RetryEnv, type RetryInfo, type RetryPolicy } from "../../src/http/retry.ts";

/** A clock that only moves when the code under test sleeps. */
function fakeEnv(randoms: number[] = []): RetryEnv & { slept: number[] } {
  let t = 1000;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    random: () => randoms.shift() ?? 0.5,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
  };
}

const policy: RetryPolicy = { attempts: 5, baseMs: 100, capMs: 1000, totalMs: 10_000 };
const retryable = { isRetryable: () => true };

describe("backoffDelay", () => {
  test("full jitter: random times the exponential ceiling", () => {
    expect(backoffDelay(policy, 0, 0.5)).toBe(50);
    expect(backoffDelay(policy, 1, 0.5)).toBe(100);
    expect(backoffDelay(policy, 2, 0.999)).toBe(399);
    expect(backoffDelay(policy, 0, 0)).toBe(0);
  });

  test("the ceiling stops growing at the cap", () => {
    expect(backoffDelay(policy, 10, 0.5)).toBe(500);
    expect(backoffDelay(policy, 60, 0.9)).toBe(900);
  });
});

describe("withRetry", () => {
  test("returns the first success and does not sleep", async () => {
    const env = fakeEnv();
    expect(await withRetry(async () => "ok", policy, retryable, env)).toBe("ok");
    expect(env.slept).toEqual([]);
  });

  test("retries a retryable failure and reports each retry with its delay", async () => {
    const env = fakeEnv([0.5, 0.5]);
    const seen: RetryInfo[] = [];
    let n = 0;
    const r = await withRetry(
      async (attempt) => {
        n = attempt;
        if (attempt < 3) throw new Error(`fail ${attempt}`);
        return attempt;
      },
      policy,
      { isRetryable: () => true, onRetry: (i) => seen.push(i) },
      env,
    );
    expect(r).toBe(3);
    expect(n).toBe(3);
    expect(env.slept).toEqual([50, 100]);
    expect(seen.map((s) => [s.attempt, s.attempts, s.delayMs, (s.error as Error).message])).toEqual([
      [1, 5, 50, "fail 1"],
      [2, 5, 100, "fail 2"],
    ]);
  });

  test("stops at the attempt bound and rethrows the last error", async () => {
    const env = fakeEnv();
    let calls = 0;
    const p = withRetry(async () => {
      calls++;
      throw new Error(`boom ${calls}`);
    }, policy, retryable, env);
    await expect(p).rejects.toThrow("boom 5");
    expect(calls).toBe(5);
    expect(env.slept.length).toBe(4);
  });

  test("a non-retryable failure is thrown at once", async () => {
    const env = fakeEnv();
    let calls = 0;
    const p = withRetry(async () => {
      calls++;
      throw new Error("tls");
    }, policy, { isRetryable: () => false }, env);
    await expect(p).rejects.toThrow("tls");
    expect(calls).toBe(1);
    expect(env.slept).toEqual([]);
  });

  test("no retry starts after the total time bound", async () => {
    const tight: RetryPolicy = { attempts: 100, baseMs: 1000, capMs: 1000, totalMs: 2500 };
    const env = fakeEnv(Array(100).fill(0.99));
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new Error("down");
      }, tight, retryable, env),
    ).rejects.toThrow("down");
    // waits of 990 ms each: 990, 1980 fit in 2500, the third (2970) would not.
    expect(env.slept).toEqual([990, 990]);
    expect(calls).toBe(3);
  });

  test("time spent inside attempts counts against the total bound", async () => {
    const env = fakeEnv([0.5]);
    let calls = 0;
    const slowPolicy: RetryPolicy = { attempts: 10, baseMs: 100, capMs: 100, totalMs: 1000 };
    await expect(
      withRetry(async () => {
        calls++;
        await env.sleep(2000); // the attempt itself took 2 s
        throw new Error("slow");
      }, slowPolicy, retryable, env),
    ).rejects.toThrow("slow");
    expect(calls).toBe(1);
  });
});
