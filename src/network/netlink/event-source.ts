/**
 * The event socket as an async iterable. `subscribe()` opens the socket and joins
 * the IPv6 bring-up groups synchronously, so from its return on the kernel queues
 * every event for us (subscribe first, then dump: nothing falls in between). A
 * Worker (event-worker.ts) reads it with poll() so the main thread never blocks; it
 * starts in the background (off the path to the first link-up) and must report
 * ready within a bound. Yields decoded message bodies with their receive time, and
 * "overrun" when the kernel dropped events (ENOBUFS) so the owner re-dumps.
 *
 * The Worker drains the socket as fast as the kernel fills it, so a consumer slower
 * than the event rate (an RA flood) would let the queue here grow without bound (net
 * watch: +15 MB/s, 516 MB after 31 s). The queue holds at most `queueCapBytes` of
 * datagrams; beyond that they are dropped and one "overrun" is queued, as if the
 * kernel had dropped them: the owner re-dumps, as after ENOBUFS (docs/bounds.md).
 */
import { AgentError } from "../../platform/errors.ts";
import { errnoName } from "../../platform/sys/errno.ts";
import * as K from "./constants.ts";
import { decodeMessages, type Body } from "./message.ts";
import { NetlinkSocket } from "./socket.ts";
import type { WorkerOut } from "./event-worker.ts";

export const BRINGUP_GROUPS = [K.RTNLGRP_LINK, K.RTNLGRP_IPV6_IFADDR, K.RTNLGRP_IPV6_ROUTE, K.RTNLGRP_IPV6_IFINFO, K.RTNLGRP_IPV6_PREFIX, K.RTNLGRP_ND_USEROPT] as const;

/**
 * From source the Worker file sits next to this one. In a `bun build --compile`
 * binary it is an extra entry point, named relative to the entry points' common
 * root (src/), while import.meta.url is the binary itself.
 */
export function workerSpec(): string {
  return import.meta.url.startsWith("file:///$bunfs/") ? "./network/netlink/event-worker.ts" : new URL("./event-worker.ts", import.meta.url).href;
}

export type SourceEvent = { readonly kind: "events"; readonly t: number; readonly bodies: readonly Body[] } | { readonly kind: "overrun"; readonly t: number };

export interface SubscribeOptions {
  readonly groups?: readonly number[];
  /** Bound for the Worker to start reading. */
  readonly startTimeoutMs?: number;
  /** SO_RCVBUFFORCE bytes. */
  readonly rcvbuf?: number;
  /** Datagram bytes allowed to wait for the consumer (default EVENT_QUEUE_CAP). */
  readonly queueCapBytes?: number;
}

/** Event bytes that may wait for a slow consumer; more is dropped and reported as an overrun. */
export const EVENT_QUEUE_CAP = 1 << 20;

type Queued = { readonly e: SourceEvent; readonly bytes: number };

export class EventSource implements AsyncIterable<SourceEvent> {
  private readonly worker: Worker;
  private readonly stopFlag = new SharedArrayBuffer(4);
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  /** An overrun waits in the queue: drops before it is taken are covered by its re-dump. */
  private overrunQueued = false;
  private waiter: ((r: IteratorResult<SourceEvent>) => void) | undefined;
  private rejecter: ((e: AgentError) => void) | undefined;
  private error: AgentError | undefined;
  private stopped = false;
  private readonly startTimer: ReturnType<typeof setTimeout>;

  private constructor(
    private readonly sock: NetlinkSocket,
    startTimeoutMs: number,
    private readonly queueCapBytes: number,
  ) {
    this.startTimer = setTimeout(() => this.fail(new AgentError("netlink", `netlink event reader (Worker) did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
    this.worker = new Worker(workerSpec());
    this.worker.onerror = (e) => this.fail(new AgentError("netlink", `netlink event reader (Worker) failed: ${e.message}`));
    this.worker.onmessage = (e: MessageEvent<WorkerOut>) => {
      const m = e.data;
      if (m.kind === "ready") clearTimeout(this.startTimer);
      else if (m.kind === "data") {
        if (this.queuedBytes + m.bytes.byteLength > this.queueCapBytes) {
          if (!this.overrunQueued) this.push({ kind: "overrun", t: m.t });
          return;
        }
        try {
          this.push({ kind: "events", t: m.t, bodies: decodeMessages(new Uint8Array(m.bytes)).map((x) => x.body) }, m.bytes.byteLength);
        } catch (err) {
          this.fail(new AgentError("netlink", `malformed netlink event: ${(err as Error).message}`));
        }
      } else if (m.kind === "overrun") this.push({ kind: "overrun", t: m.t });
      else if (m.kind === "error") this.fail(new AgentError("netlink", `netlink event socket ${m.what}: ${errnoName(m.errno)}`, { errno: m.errno }));
    };
    this.worker.postMessage({ fd: sock.fd, stop: this.stopFlag });
  }

  /** Datagram bytes waiting for the consumer (at most queueCapBytes). */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  /** Joined to the groups when this returns; the Worker starts reading in the background. */
  static subscribe(opts: SubscribeOptions = {}): EventSource {
    const sock = NetlinkSocket.open({ groups: opts.groups ?? BRINGUP_GROUPS, rcvbuf: opts.rcvbuf ?? 4 << 20 });
    try {
      return new EventSource(sock, opts.startTimeoutMs ?? 5000, opts.queueCapBytes ?? EVENT_QUEUE_CAP);
    } catch (e) {
      sock.close();
      throw e;
    }
  }

  private push(e: SourceEvent, bytes = 0): void {
    if (this.stopped) return;
    const w = this.waiter;
    if (w) {
      this.waiter = this.rejecter = undefined;
      w({ value: e, done: false });
    } else {
      this.queue.push({ e, bytes });
      this.queuedBytes += bytes;
      if (e.kind === "overrun") this.overrunQueued = true;
    }
  }

  private fail(e: AgentError): void {
    clearTimeout(this.startTimer);
    this.error ??= e;
    const r = this.rejecter;
    this.waiter = this.rejecter = undefined;
    r?.(e);
  }

  next(): Promise<IteratorResult<SourceEvent>> {
    const q = this.queue.shift();
    if (q) {
      this.queuedBytes -= q.bytes;
      if (q.e.kind === "overrun") this.overrunQueued = false;
      return Promise.resolve({ value: q.e, done: false });
    }
    if (this.error) return Promise.reject(this.error);
    if (this.stopped) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.rejecter = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<SourceEvent> {
    return { next: () => this.next(), return: async () => (await this.stop(), { value: undefined, done: true }) };
  }

  /** Stops the Worker between polls (<= ~100 ms), then closes the socket. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.startTimer);
    this.waiter?.({ value: undefined, done: true });
    this.waiter = this.rejecter = undefined;
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
