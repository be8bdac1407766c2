/**
 * Happy Eyeballs over uplinks (RFC 8305 section 5, with uplinks in place of address
 * families): the first uplink's connection attempt starts at once; each next one starts
 * when the one before failed, or after the connect-attempt delay if it is still
 * connecting, so a silent (blackholed) uplink costs one delay, not a connect timeout.
 * The first connection made wins; every other attempt is cancelled (its socket
 * destroyed, also when it connects later). All failed: `AllUplinksFailed`, whose cause
 * is the first uplink's error. Time comes in as a timer, so tests drive it.
 */

export interface ConnectAttempt<S> {
  readonly result: Promise<S>;
  /** Ends the attempt, and closes its connection if it made one. */
  cancel(): void;
}

export interface RaceTimer {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}
export const realTimer: RaceTimer = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface RaceOutcome<U, S> {
  readonly winner: U;
  readonly socket: S;
  /** The attempts that failed before the winner connected, in order. */
  readonly failed: readonly { readonly uplink: U; readonly error: unknown }[];
  /** The attempts still connecting when the winner did (cancelled). */
  readonly pending: readonly U[];
}

export class AllUplinksFailed<U> extends Error {
  constructor(readonly failed: readonly { readonly uplink: U; readonly error: unknown }[]) {
    super(`no connection through any of ${failed.length} uplinks`, { cause: failed[0]?.error });
  }
}

/** RFC 8305's recommended connection attempt delay is 250 ms; a little more for a loaded machine. */
export const CONNECT_ATTEMPT_DELAY_MS = 300;

export function raceUplinks<U, S>(order: readonly U[], start: (u: U) => ConnectAttempt<S>, delayMs: number, timer: RaceTimer = realTimer): Promise<RaceOutcome<U, S>> {
  return new Promise((resolve, reject) => {
    if (order.length === 0) return reject(new AllUplinksFailed<U>([]));
    const live = new Map<U, ConnectAttempt<S>>();
    const failed: { uplink: U; error: unknown }[] = [];
    let next = 0;
    let done = false;
    let handle: unknown;
    const launch = (): void => {
      timer.clear(handle);
      if (done || next >= order.length) return;
      const u = order[next++] as U;
      const a = start(u);
      live.set(u, a);
      if (next < order.length) handle = timer.set(launch, delayMs);
      a.result.then(
        (socket) => {
          if (done) {
            a.cancel();
            return;
          }
          done = true;
          timer.clear(handle);
          live.delete(u);
          const pending = [...live.keys()];
          for (const other of live.values()) other.cancel();
          resolve({ winner: u, socket, failed, pending });
        },
        (error: unknown) => {
          if (done) return;
          live.delete(u);
          failed.push({ uplink: u, error });
          if (next < order.length) launch();
          else if (live.size === 0) {
            done = true;
            reject(new AllUplinksFailed(failed));
          }
        },
      );
    };
    launch();
  });
}
