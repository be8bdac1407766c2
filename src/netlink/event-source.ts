/**
 * The event socket: joined to the IPv6 bring-up groups before any link goes up,
 * read by a Worker (event-worker.ts) so the main thread never blocks. Delivers
 * decoded messages with their receive time, and "overrun" when the kernel dropped
 * events (ENOBUFS) so the owner re-dumps.
 */
import { AgentError } from "../errors.ts";
import * as K from "./constants.ts";
import { errnoName } from "../sys/errno.ts";
import { decodeMessages, type Message } from "./message.ts";
import { NetlinkSocket } from "./socket.ts";
import type { WorkerOut } from "./event-worker.ts";

export const BRINGUP_GROUPS = [K.RTNLGRP_LINK, K.RTNLGRP_IPV6_IFADDR, K.RTNLGRP_IPV6_ROUTE, K.RTNLGRP_IPV6_IFINFO, K.RTNLGRP_IPV6_PREFIX, K.RTNLGRP_ND_USEROPT] as const;

/**
 * From source the Worker file sits next to this one. In a `bun build --compile`
 * binary it is an extra entry point, named relative to the entry points' common
 * root (src/), while import.meta.url is the binary itself.
 */
export function workerSpec(): string {
  return import.meta.url.startsWith("file:///$bunfs/") ? "./netlink/event-worker.ts" : new URL("./event-worker.ts", import.meta.url).href;
}

export interface EventSink {
  messages(msgs: readonly Message[], t: number): void;
  overrun(t: number): void;
  failed(err: AgentError): void;
}

export class EventSource {
  private readonly worker: Worker;
  private readonly stopFlag = new SharedArrayBuffer(4);
  private stopped = false;

  private constructor(
    private readonly sock: NetlinkSocket,
    sink: EventSink,
    onReady: () => void,
  ) {
    this.worker = new Worker(workerSpec());
    this.worker.onerror = (e) => sink.failed(new AgentError("netlink", `netlink event reader (Worker) failed: ${e.message}`));
    this.worker.onmessage = (e: MessageEvent<WorkerOut>) => {
      const m = e.data;
      if (m.kind === "ready") onReady();
      else if (m.kind === "data") {
        try {
          sink.messages(decodeMessages(new Uint8Array(m.bytes)), m.t);
        } catch (err) {
          sink.failed(new AgentError("netlink", `malformed netlink event: ${(err as Error).message}`));
        }
      } else if (m.kind === "overrun") sink.overrun(m.t);
      else if (m.kind === "error") sink.failed(new AgentError("netlink", `netlink event socket ${m.what}: ${errnoName(m.errno)}`, { errno: m.errno }));
    };
    this.worker.postMessage({ fd: sock.fd, stop: this.stopFlag });
  }

  /** Opens, joins the groups and resolves once the Worker is polling (bounded). */
  static async start(sink: EventSink, groups: readonly number[] = BRINGUP_GROUPS, timeoutMs = 5000, rcvbuf = 4 << 20): Promise<EventSource> {
    const sock = NetlinkSocket.open({ groups, rcvbuf });
    let src: EventSource | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new AgentError("netlink", `netlink event reader did not start within ${timeoutMs} ms`)), timeoutMs);
        src = new EventSource(sock, sink, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    } catch (e) {
      if (src) await src.stop();
      else sock.close();
      throw e;
    }
    return src as unknown as EventSource;
  }

  /** Stops the Worker between polls (<= ~100 ms), then closes the socket. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    Atomics.store(new Int32Array(this.stopFlag), 0, 1);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 500);
      this.worker.addEventListener("message", (e: MessageEvent<WorkerOut>) => {
        if (e.data.kind === "stopped" || e.data.kind === "error") {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    this.worker.terminate();
    this.sock.close();
  }
}
