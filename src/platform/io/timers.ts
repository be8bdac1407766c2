/**
 * Time as a dependency: a monotonic clock and one-shot timers. Code that waits on a
 * timer (a stall guard, a heartbeat, a bound) takes a Timers, the real one by default,
 * so tests drive time with a fake (test/helpers/fake-timers.ts) instead of sleeping.
 */
export interface Timers {
  /** Monotonic milliseconds. */
  now(): number;
  /** Calls `fn` once, `ms` from now; the answer cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const realTimers: Timers = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** Calls `fn` every `ms` until the answer is called (re-armed after each call). */
export function every(t: Timers, ms: number, fn: () => void): () => void {
  let cancel: () => void;
  let stopped = false;
  const arm = (): void => {
    cancel = t.after(ms, () => {
      if (stopped) return;
      fn();
      if (!stopped) arm();
    });
  };
  arm();
  return () => {
    stopped = true;
    cancel();
  };
}
