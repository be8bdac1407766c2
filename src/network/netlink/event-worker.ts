/**
 * Worker that waits on the event socket without blocking the main thread
 * (src/platform/sys/poll-loop.ts: poll() with a 100 ms timeout, then recv(MSG_DONTWAIT) until
 * EAGAIN), posting each datagram with its receive time (epoch ms). A shared Int32 flag
 * stops it between polls. ENOBUFS (the kernel dropped events) is posted as "overrun": the owner
 * re-dumps. This file is an extra entry point of `bun build --compile`.
 */
import { ENOBUFS } from "../../platform/sys/errno.ts";
import { libc } from "../../platform/sys/libc.ts";
import { pollLoop } from "../../platform/sys/poll-loop.ts";

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
  post({ kind: "ready" });
  const end = pollLoop(libc(), [fd], stop, 256 * 1024, {
    data: (_i, buf, n) => {
      const bytes = buf.slice(0, n).buffer;
      post({ kind: "data", t: now(), bytes }, [bytes]);
    },
    recvError: (_i, e) => {
      if (e === ENOBUFS) {
        post({ kind: "overrun", t: now() });
        return "retry";
      }
      post({ kind: "error", errno: e, what: "recv" });
      return "end";
    },
  });
  if (end.kind === "poll_error") post({ kind: "error", errno: end.errno, what: "poll" });
  if (end.kind === "stopped") post({ kind: "stopped" });
}

self.onmessage = (e: MessageEvent<WorkerIn>) => loop(e.data);
