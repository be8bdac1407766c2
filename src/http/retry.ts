/**
 * Retry with exponential backoff and full jitter (AWS architecture blog, "Exponential
 * Backoff And Jitter"): the n-th retry waits random() * min(cap, base * 2^n). Bounded
 * twice: by the number of attempts and by the total time since the first attempt
 * (a retry whose wait would end after the deadline is not made). Clock, random source
 * and sleep come in as arguments, so the policy is tested without waiting.
 */
export interface RetryPolicy {
  /** Total attempts including the first (>= 1). */
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs: number;
  /** No retry starts later than this after the first attempt began. */
  readonly totalMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 250, capMs: 8_000, totalMs: 60_000 };

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

/** The wait before retry number `retry` (0 = the first retry), for a random value in [0, 1). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** retry);
  return Math.floor(random * ceiling);
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
      const delayMs = backoffDelay(policy, attempt - 1, env.random());
      if (env.now() + delayMs - start > policy.totalMs) throw error;
      hooks.onRetry?.({ attempt, attempts: policy.attempts, delayMs, error });
      await env.sleep(delayMs);
    }
  }
}
