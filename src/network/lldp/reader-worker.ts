/**
 * Worker that reads the LLDP packet sockets without blocking the main thread
 * (src/platform/sys/poll-loop.ts: poll() over every fd with a 100 ms timeout, then
 * recv(MSG_DONTWAIT) until EAGAIN), posting each frame with the index of its socket
 * and its receive time.
 * POLLERR (a latched ENETDOWN: link went down, or the socket was bound while it was
 * down) is cleared by reading SO_ERROR and the socket keeps reading once the link is
 * up. More than MAX_PER_SECOND frames a second on one socket are dropped and counted
 * (a flooding peer cannot flood the log or the main thread). A shared Int32 flag stops
 * the loop between polls. This file is an extra entry point of `bun build --compile`.
 */
import { libc, POLLIN } from "../../platform/sys/libc.ts";
import { clearSocketError, ENETDOWN } from "../../platform/sys/packet-socket.ts";
import { pollLoop } from "../../platform/sys/poll-loop.ts";

export type ReaderIn = { readonly fds: readonly number[]; readonly stop: SharedArrayBuffer };
export type ReaderOut =
  | { readonly kind: "ready" }
  | { readonly kind: "frame"; readonly index: number; readonly t: number; readonly bytes: ArrayBuffer }
  | { readonly kind: "cleared"; readonly index: number; readonly errno: number }
  | { readonly kind: "dropped"; readonly index: number; readonly count: number }
  | { readonly kind: "error"; readonly index: number; readonly errno: number; readonly what: string }
  | { readonly kind: "stopped" };

const POLLERR = 0x8;
const POLLHUP = 0x10;
const POLLNVAL = 0x20;
export const MAX_PER_SECOND = 100;

declare const self: Worker;

const post = (m: ReaderOut, transfer?: ArrayBuffer[]) => (transfer ? self.postMessage(m, transfer) : self.postMessage(m));
const now = () => performance.timeOrigin + performance.now();

function loop({ fds, stop }: ReaderIn): void {
  const c = libc();
  const budget = fds.map(() => ({ second: 0, used: 0, dropped: 0 }));
  post({ kind: "ready" });
  const end = pollLoop(c, fds, stop, 65536, {
    events: (i, fd, revents) => {
      if (revents & POLLNVAL) {
        post({ kind: "error", index: i, errno: 9, what: "poll (fd closed)" });
        return "drop";
      }
      if (revents & (POLLERR | POLLHUP)) post({ kind: "cleared", index: i, errno: clearSocketError(c, fd) });
      return (revents & POLLIN) !== 0;
    },
    data: (i, buf, n) => {
      const b = budget[i] as (typeof budget)[number];
      const second = Math.floor(now() / 1000);
      if (second !== b.second) {
        if (b.dropped > 0) post({ kind: "dropped", index: i, count: b.dropped });
        b.second = second;
        b.used = 0;
        b.dropped = 0;
      }
      if (++b.used > MAX_PER_SECOND) {
        b.dropped++;
        return;
      }
      const bytes = buf.slice(0, n).buffer;
      post({ kind: "frame", index: i, t: now(), bytes }, [bytes]);
    },
    recvError: (i, e) => {
      if (e === ENETDOWN) {
        clearSocketError(c, fds[i]!);
        return "next";
      }
      post({ kind: "error", index: i, errno: e, what: "recv" });
      return "drop";
    },
  });
  if (end.kind === "poll_error") post({ kind: "error", index: -1, errno: end.errno, what: "poll" });
  if (end.kind === "stopped") post({ kind: "stopped" });
}

self.onmessage = (e: MessageEvent<ReaderIn>) => loop(e.data);
