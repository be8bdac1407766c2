/**
 * Worker that reads the LLDP packet sockets without blocking the main thread
 * (../shared/FIELD-NOTES.md §4): poll() over every fd with a 100 ms timeout, then recv(MSG_DONTWAIT)
 * until EAGAIN, posting each frame with the index of its socket and its receive time.
 * POLLERR (a latched ENETDOWN: link went down, or the socket was bound while it was
 * down) is cleared by reading SO_ERROR and the socket keeps reading once the link is
 * up. More than MAX_PER_SECOND frames a second on one socket are dropped and counted
 * (a flooding peer cannot flood the log or the main thread). A shared Int32 flag stops
 * the loop between polls. This file is an extra entry point of `bun build --compile`.
 */
import { EAGAIN, EINTR } from "../sys/errno.ts";
import { libc, MSG_DONTWAIT, POLLIN } from "../sys/libc.ts";
import { clearSocketError, ENETDOWN } from "../sys/packet-socket.ts";

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
  const flag = new Int32Array(stop);
  const buf = new Uint8Array(65536);
  const pfds = new Uint8Array(8 * fds.length);
  const dv = new DataView(pfds.buffer);
  fds.forEach((fd, i) => {
    dv.setInt32(i * 8, fd, true);
    dv.setInt16(i * 8 + 4, POLLIN, true);
  });
  const budget = fds.map(() => ({ second: 0, used: 0, dropped: 0 }));
  const dropFd = (i: number) => dv.setInt32(i * 8, -1, true); // poll() ignores negative fds
  post({ kind: "ready" });
  while (Atomics.load(flag, 0) === 0) {
    const r = c.poll(pfds, fds.length, 100);
    if (r < 0) {
      const e = c.errno();
      if (e === EINTR) continue;
      return post({ kind: "error", index: -1, errno: e, what: "poll" });
    }
    if (r === 0) continue;
    for (let i = 0; i < fds.length; i++) {
      const fd = dv.getInt32(i * 8, true);
      const revents = dv.getInt16(i * 8 + 6, true);
      dv.setInt16(i * 8 + 6, 0, true);
      if (fd < 0 || revents === 0) continue;
      if (revents & POLLNVAL) {
        post({ kind: "error", index: i, errno: 9, what: "poll (fd closed)" });
        dropFd(i);
        continue;
      }
      if (revents & (POLLERR | POLLHUP)) {
        const e = clearSocketError(c, fd);
        post({ kind: "cleared", index: i, errno: e });
      }
      if (!(revents & POLLIN)) continue;
      for (;;) {
        const n = c.recv(fd, buf, buf.byteLength, MSG_DONTWAIT);
        if (n < 0) {
          const e = c.errno();
          if (e === EAGAIN) break;
          if (e === EINTR) continue;
          if (e === ENETDOWN) {
            clearSocketError(c, fd);
            break;
          }
          post({ kind: "error", index: i, errno: e, what: "recv" });
          dropFd(i);
          break;
        }
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
          continue;
        }
        const bytes = buf.slice(0, n).buffer;
        post({ kind: "frame", index: i, t: now(), bytes }, [bytes]);
      }
    }
  }
  post({ kind: "stopped" });
}

self.onmessage = (e: MessageEvent<ReaderIn>) => loop(e.data);
