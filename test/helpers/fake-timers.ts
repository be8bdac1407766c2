/**
 * A fake Timers (src/platform/io/timers.ts) for tests: time stands still until the test (or a
 * fake it drives) calls advance(ms), which fires every timer that falls due, in time
 * order, with now() set to each one's due time. No real waiting.
 */
import type { Timers } from "../../src/platform/io/timers.ts";

export interface FakeTimers extends Timers {
  /** Moves time on by `ms`, firing what falls due on the way. */
  advance(ms: number): void;
  /** As a RetryEnv/DiskIo sleep: advances at once. */
  sleep(ms: number): Promise<void>;
  /** Timers armed and not yet fired or cancelled. */
  pending(): number;
}

export function fakeTimers(start = 0): FakeTimers {
  let now = start;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const advance = (ms: number): void => {
    const end = now + Math.max(0, ms);
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of due) if (e[1].at <= end && (next === undefined || e[1].at < next[1].at || (e[1].at === next[1].at && e[0] < next[0]))) next = e;
      if (next === undefined) break;
      due.delete(next[0]);
      now = Math.max(now, next[1].at);
      next[1].fn();
    }
    now = end;
  };
  return {
    now: () => now,
    after(ms, fn) {
      const id = seq++;
      due.set(id, { at: now + Math.max(0, ms), fn });
      return () => void due.delete(id);
    },
    advance,
    sleep: async (ms) => advance(ms),
    pending: () => due.size,
  };
}
