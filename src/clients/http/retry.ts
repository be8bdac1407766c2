/**
 * Retry with exponential backoff and full jitter (AWS architecture blog, "Exponential
 * Backoff And Jitter"): the n-th retry waits random() * min(cap, base * 2^n). The
 * window is measured in time: retries go on until `totalMs` after the first attempt
 * (a wait that would end after it is shortened to end there: the last attempt starts at
 * the window's end, not up to one backoff cap before it), so a metal-boot that restarts
 * for 30 s is still reached; `attempts` is only a backstop. Clock, random source and
 * sleep come in as arguments, so the policy is tested without waiting.
 * `fullJitter` is the project's one backoff formula (the Wait reconnects use it too).
 */
export interface RetryPolicy {
  /** Total attempts including the first (>= 1). */
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs: number;
  /** No retry starts later than this after the first attempt began. */
  readonly totalMs: number;
}

/** 60 s of retries (docs/bounds.md): with a 5 s cap, a 30 s restart is bridged with several attempts to spare. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 100, baseMs: 250, capMs: 5_000, totalMs: 60_000 };

export interface RetryEnv {
  now(): number;
  random(): number;
  sleep(ms: number): Promise<void>;
}

export const realRetryEnv: RetryEnv = {
  now: () => performance.now(),
  random: Math.random,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/** Full jitter: a delay in [0, min(cap, base * 2^n)) for the n-th consecutive retry (n from 0) and random in [0, 1). */
export function fullJitter(n: number, baseMs: number, capMs: number, random: number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(n, 52));
  return Math.floor(random * ceiling);
}

/** The wait before retry number `retry` (0 = the first retry), for a random value in [0, 1). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: number): number {
  return fullJitter(retry, policy.baseMs, policy.capMs, random);
}

export interface RetryInfo {
  /** The attempt that just failed, 1-based. */
  readonly attempt: number;
  readonly attempts: number;
  readonly delayMs: number;
  readonly error: unknown;
}

export interface RetryHooks {
  /** Whether the failure is worth another attempt. */
  isRetryable(error: unknown): boolean;
  /** Called before each wait (the caller logs http.retry here). */
  onRetry?(info: RetryInfo): void;
}

/** Runs `fn` until it succeeds, fails with a non-retryable error, or a bound is hit; then rethrows the last error. */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy, hooks: RetryHooks, env: RetryEnv = realRetryEnv): Promise<T> {
  const start = env.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= policy.attempts || !hooks.isRetryable(error)) throw error;
      const left = policy.totalMs - (env.now() - start);
      if (left <= 0) throw error;
      const delayMs = Math.min(backoffDelay(policy, attempt - 1, env.random()), Math.ceil(left));
      hooks.onRetry?.({ attempt, attempts: policy.attempts, delayMs, error });
      await env.sleep(delayMs);
    }
  }
}
