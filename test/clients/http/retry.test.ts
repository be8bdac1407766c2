import { describe, expect, test } from "bun:test";
import { DEFAULT_RETRY, backoffDelay, fullJitter, withRetry, type RetryEnv, type RetryInfo, type RetryPolicy } from "../../../src/clients/http/retry.ts";
import { WAIT_BACKOFF, WaitTracker } from "../../../src/agent/wait-policy.ts";

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
    const p = withRetry(
      async () => {
        calls++;
        throw new Error(`boom ${calls}`);
      },
      policy,
      retryable,
      env,
    );
    await expect(p).rejects.toThrow("boom 5");
    expect(calls).toBe(5);
    expect(env.slept.length).toBe(4);
  });

  test("a non-retryable failure is thrown at once", async () => {
    const env = fakeEnv();
    let calls = 0;
    const p = withRetry(
      async () => {
        calls++;
        throw new Error("tls");
      },
      policy,
      { isRetryable: () => false },
      env,
    );
    await expect(p).rejects.toThrow("tls");
    expect(calls).toBe(1);
    expect(env.slept).toEqual([]);
  });

  test("no retry starts after the total time bound", async () => {
    const tight: RetryPolicy = { attempts: 100, baseMs: 1000, capMs: 1000, totalMs: 2500 };
    const env = fakeEnv(Array(100).fill(0.99));
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error("down");
        },
        tight,
        retryable,
        env,
      ),
    ).rejects.toThrow("down");
    // waits of 990 ms each: 990, 1980 fit in 2500; the third is shortened to end at 2500
    // (the last attempt starts at the window's end), then none is left.
    expect(env.slept).toEqual([990, 990, 520]);
    expect(calls).toBe(4);
    expect(env.slept.reduce((a, b) => a + b, 0)).toBe(2500);
  });

  test("time spent inside attempts counts against the total bound", async () => {
    const env = fakeEnv([0.5]);
    let calls = 0;
    const slowPolicy: RetryPolicy = { attempts: 10, baseMs: 100, capMs: 100, totalMs: 1000 };
    await expect(
      withRetry(
        async () => {
          calls++;
          await env.sleep(2000); // the attempt itself took 2 s
          throw new Error("slow");
        },
        slowPolicy,
        retryable,
        env,
      ),
    ).rejects.toThrow("slow");
    expect(calls).toBe(1);
  });
});

describe("the default retry window is measured in time", () => {
  test("a server down for 30 s (each attempt costing 1 s) is reached with the default policy", async () => {
    const env = fakeEnv(Array.from({ length: 200 }, (_, i) => (i % 10) / 10));
    const start = env.now();
    let attempts = 0;
    const r = await withRetry(
      async () => {
        attempts++;
        await env.sleep(1000); // the attempt itself (a connect timeout, a refused connection's round trip)
        if (env.now() - start < 30_000) throw new Error("ECONNREFUSED");
        return "up";
      },
      DEFAULT_RETRY,
      retryable,
      env,
    );
    expect(r).toBe("up");
    expect(attempts).toBeGreaterThan(5);
  });

  test("a server that never comes back is given up on after the 60 s window, not after a count", async () => {
    const env = fakeEnv(Array.from({ length: 500 }, () => 0.5));
    const start = env.now();
    await expect(withRetry(async () => Promise.reject(new Error("ECONNREFUSED")), DEFAULT_RETRY, retryable, env)).rejects.toThrow("ECONNREFUSED");
    const spent = env.now() - start;
    expect(spent).toBeGreaterThan(DEFAULT_RETRY.totalMs - DEFAULT_RETRY.capMs);
    expect(spent).toBeLessThanOrEqual(DEFAULT_RETRY.totalMs);
  });

  test("a server down for all but the last 100 ms of the window is reached, whatever the jitter draws", async () => {
    for (const r of [0.99, 0.7, 0.3]) {
      const env = fakeEnv(Array.from({ length: 500 }, () => r));
      const start = env.now();
      let attempts = 0;
      const got = await withRetry(
        async () => {
          attempts++;
          if (env.now() - start < DEFAULT_RETRY.totalMs - 100) throw new Error("ECONNREFUSED");
          return "up";
        },
        DEFAULT_RETRY,
        retryable,
        env,
      );
      expect(got).toBe("up");
      expect(env.now() - start).toBeLessThanOrEqual(DEFAULT_RETRY.totalMs);
      expect(attempts).toBeGreaterThan(10);
    }
  });

  test("one full-jitter formula: the Wait reconnect delay is fullJitter (at least minMs)", () => {
    const t = new WaitTracker({ ...WAIT_BACKOFF, timeoutMs: 3_600_000 }, 0);
    const d = [0.5, 0.5, 0.5].map((r, n) => t.broke(0, r));
    expect(d.map((x) => (x.kind === "reconnect" ? x.delayMs : -1))).toEqual(
      [0, 1, 2].map((n) => Math.max(WAIT_BACKOFF.minMs, fullJitter(n, WAIT_BACKOFF.baseMs, WAIT_BACKOFF.capMs, 0.5))),
    );
  });
});
