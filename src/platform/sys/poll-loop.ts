/**
 * The read loop of the socket workers (src/network/netlink/event-worker.ts,
 * src/network/lldp/reader-worker.ts), which run it in a Worker so the main thread never
 * blocks (nor the Worker: one blocked in recv() cannot be terminated): poll() over the fds with a 100 ms timeout until
 * a shared Int32 flag is set (checked between polls), then, on each fd that has
 * events, recv(MSG_DONTWAIT) until EAGAIN (EINTR retried, on poll() too). What events,
 * data and errors mean is the caller's: the handlers decide.
 */
import { EAGAIN, EINTR } from "./errno.ts";
import { MSG_DONTWAIT, POLLIN } from "./libc.ts";

/** How long one poll() waits: the latency of the stop flag. */
export const POLL_TIMEOUT_MS = 100;

/** The libc calls the loop makes (src/platform/sys/libc.ts; tests pass a fake). */
export interface PollLibc {
  poll(pfds: Uint8Array, nfds: number, timeoutMs: number): number;
  recv(fd: number, buf: Uint8Array, len: number, flags: number): number;
  errno(): number;
}

/** After a recv() error: read again, go on to the next fd, stop polling this fd, or end the loop. */
export type RecvErrorAction = "retry" | "next" | "drop" | "end";

export interface PollHandlers {
  /** Events on fd `i` before it is read (default: read it): false skips reading it this round, "drop" stops polling it. */
  readonly events?: (i: number, fd: number, revents: number) => boolean | "drop";
  /** One datagram in `buf[0, n)`; the buffer is reused, so copy what you keep. */
  readonly data: (i: number, buf: Uint8Array, n: number) => void;
  /** recv() failed with `errno` (not EAGAIN or EINTR). */
  readonly recvError: (i: number, errno: number) => RecvErrorAction;
}

export type PollLoopEnd = { readonly kind: "stopped" } | { readonly kind: "poll_error"; readonly errno: number } | { readonly kind: "ended" };

/** Runs until the flag in `stop` is non-zero ("stopped"), poll() fails, or a handler ends it. */
export function pollLoop(c: PollLibc, fds: readonly number[], stop: SharedArrayBuffer, bufBytes: number, h: PollHandlers): PollLoopEnd {
  const flag = new Int32Array(stop);
  const buf = new Uint8Array(bufBytes);
  // struct pollfd { int fd; short events; short revents; } per fd; poll() ignores negative fds.
  const pfds = new Uint8Array(8 * fds.length);
  const dv = new DataView(pfds.buffer);
  fds.forEach((fd, i) => {
    dv.setInt32(i * 8, fd, true);
    dv.setInt16(i * 8 + 4, POLLIN, true);
  });
  const dropFd = (i: number) => dv.setInt32(i * 8, -1, true);
  while (Atomics.load(flag, 0) === 0) {
    const r = c.poll(pfds, fds.length, POLL_TIMEOUT_MS);
    if (r < 0) {
      const e = c.errno();
      if (e === EINTR) continue;
      return { kind: "poll_error", errno: e };
    }
    if (r === 0) continue;
    for (let i = 0; i < fds.length; i++) {
      const fd = dv.getInt32(i * 8, true);
      const revents = dv.getInt16(i * 8 + 6, true);
      dv.setInt16(i * 8 + 6, 0, true);
      if (fd < 0 || revents === 0) continue;
      const read = h.events ? h.events(i, fd, revents) : true;
      if (read === "drop") dropFd(i);
      if (read !== true) continue;
      for (;;) {
        const n = c.recv(fd, buf, buf.byteLength, MSG_DONTWAIT);
        if (n >= 0) {
          h.data(i, buf, n);
          continue;
        }
        const e = c.errno();
        if (e === EAGAIN) break;
        if (e === EINTR) continue;
        const action = h.recvError(i, e);
        if (action === "retry") continue;
        if (action === "end") return { kind: "ended" };
        if (action === "drop") dropFd(i);
        break;
      }
    }
  }
  return { kind: "stopped" };
}
