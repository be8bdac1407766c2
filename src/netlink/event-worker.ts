/**
 * Worker that waits on the event socket without blocking the main thread: poll()
 * with a 100 ms timeout, then recv(MSG_DONTWAIT) until EAGAIN, posting each
 * datagram with its receive time (epoch ms). A shared Int32 flag stops it between
 * polls. ENOBUFS (the kernel dropped events) is posted as "overrun": the owner
 * re-dumps. This file is an extra entry point of `bun build --compile`.
 */
import { EAGAIN, EINTR, ENOBUFS } from "../sys/errno.ts";
import { libc, pollOnce, MSG_DONTWAIT } from "../sys/libc.ts";

export type WorkerIn = { readonly fd: number; readonly stop: SharedArrayBuffer };
export type WorkerOut =
  | { readonly kind: "ready" }
  | { readonly kind: "data"; readonly t: number; readonly bytes: ArrayBuffer }
  | { readonly kind: "overrun"; readonly t: number }
  | { readonly kind: "error"; readonly errno: number; readonly what: string }
  | { readonly kind: "stopped" };

declare const self: Worker;

const post = (m: WorkerOut, transfer?: ArrayBuffer[]) => (transfer ? self.postMessage(m, transfer) : self.postMessage(m));
const now = () => performance.timeOrigin + performance.now();

function loop({ fd, stop }: WorkerIn): void {
  const c = libc();
  const flag = new Int32Array(stop);
  const buf = new Uint8Array(256 * 1024);
  post({ kind: "ready" });
  while (Atomics.load(flag, 0) === 0) {
    const p = pollOnce(c, fd, 100);
    if (p.errno && p.errno !== EINTR) return post({ kind: "error", errno: p.errno, what: "poll" });
    if (!p.ready) continue;
    for (;;) {
      const n = c.recv(fd, buf, buf.byteLength, MSG_DONTWAIT);
      if (n < 0) {
        const e = c.errno();
        if (e === EAGAIN) break;
        if (e === EINTR) continue;
        if (e === ENOBUFS) {
          post({ kind: "overrun", t: now() });
          continue;
        }
        return post({ kind: "error", errno: e, what: "recv" });
      }
      const bytes = buf.slice(0, n).buffer;
      post({ kind: "data", t: now(), bytes }, [bytes]);
    }
  }
  post({ kind: "stopped" });
}

self.onmessage = (e: MessageEvent<WorkerIn>) => loop(e.data);
