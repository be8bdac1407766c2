/**
 * Ships every log line to Loki, never in the flow's way. The logger's write path calls
 * `sink(line)` with the line it already scrubbed (redaction happens before anything
 * can leave the machine); the line is stamped and queued in a bounded buffer that drops
 * the oldest lines (counted) when full. Lines are buffered from the first one on, while
 * the endpoint is not known yet (it comes with the config from metal-boot); `start()`
 * begins shipping them, `disable()` drops them when there is no endpoint.
 *
 * Sending runs in the background: one request at a time, a batch per `batchLines` or
 * `intervalMs`, a failed batch is put back and retried after a jittered back-off (up to
 * 30 s). `sink` never throws and never waits; `flush(ms)` sends what is left, bounded,
 * before reboot or kexec. A clock step (ops/clock/sync.ts) moves the stamps of the lines
 * still queued, so lines logged while the RTC said 2001 arrive with the right time.
 */
import { lokiPushBody, type Labels, type LogEntry } from "./loki-payload.ts";
import { DropOldestQueue } from "./ring.ts";

/** Sends one push body; rejects on any failure (transport.ts). */
export type PushFn = (body: string) => Promise<void>;

export interface ShipperOptions {
  readonly maxLines?: number;
  readonly batchLines?: number;
  readonly intervalMs?: number;
  /** Longer lines are cut (Loki's default limit is 256 KiB). */
  readonly maxLineBytes?: number;
  readonly now?: () => number;
  readonly random?: () => number;
  /** State changes (failing, recovered) for the caller to log; called outside `sink`. */
  readonly onChange?: (change: ShipperChange) => void;
}

export type ShipperChange = { readonly kind: "failing"; readonly error: string; readonly queued: number } | { readonly kind: "recovered"; readonly dropped: number };

export interface ShipperStats {
  readonly state: "buffering" | "shipping" | "failing" | "off";
  readonly sent: number;
  readonly dropped: number;
  readonly failedPushes: number;
  readonly queued: number;
  readonly lastError?: string;
  /** Unix ms of the last successful push. */
  readonly lastSentAt?: number;
  readonly reason?: string;
}

const MAX_BACKOFF_MS = 30_000;

export class LogShipper {
  readonly #q: DropOldestQueue<LogEntry>;
  readonly #batch: number;
  readonly #interval: number;
  readonly #maxLine: number;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #onChange: ((c: ShipperChange) => void) | undefined;
  #push: PushFn | undefined;
  #labels: Labels = {};
  #state: ShipperStats["state"] = "buffering";
  #reason: string | undefined;
  #sent = 0;
  #failed = 0;
  #fails = 0;
  #lastError: string | undefined;
  #lastSentAt: number | undefined;
  #lastNs = 0n;
  #timer: Timer | undefined;
  #inflight: Promise<void> | undefined;
  #retryAt = 0;

  constructor(opts: ShipperOptions = {}) {
    this.#q = new DropOldestQueue(opts.maxLines ?? 10_000);
    this.#batch = opts.batchLines ?? 500;
    this.#interval = opts.intervalMs ?? 1000;
    this.#maxLine = opts.maxLineBytes ?? 64 * 1024;
    this.#now = opts.now ?? Date.now;
    this.#random = opts.random ?? Math.random;
    this.#onChange = opts.onChange;
  }

  /** The logger's sink: stamps and queues one scrubbed line. Never throws, never waits. */
  readonly sink = (line: string): void => {
    if (this.#state === "off") return;
    try {
      let text = line.endsWith("\n") ? line.slice(0, -1) : line;
      if (text.length > this.#maxLine) text = `${text.slice(0, this.#maxLine)}...[cut ${text.length - this.#maxLine} chars]`;
      let ns = BigInt(Math.floor(this.#now())) * 1_000_000n;
      if (ns <= this.#lastNs) ns = this.#lastNs + 1n;
      this.#lastNs = ns;
      this.#q.push({ ns, line: text });
      this.#schedule();
    } catch {
      // A log sink must not fail the logger.
    }
  };

  /** Begins shipping to `push` with these stream labels (buffered lines first). */
  start(push: PushFn, labels: Labels): void {
    this.#push = push;
    this.#labels = labels;
    this.#state = "shipping";
    this.#schedule(true);
  }

  /** No endpoint: stop collecting and free the buffer. */
  disable(reason: string): void {
    this.#state = "off";
    this.#reason = reason;
    this.#q.clear();
    clearTimeout(this.#timer);
  }

  /** The clock was stepped by `offsetMs`: queued stamps move with it. */
  clockStepped(offsetMs: number): void {
    const d = BigInt(Math.round(offsetMs)) * 1_000_000n;
    this.#q.map((e) => ({ ns: e.ns + d, line: e.line }));
    this.#lastNs += d;
  }

  get stats(): ShipperStats {
    return {
      state: this.#state,
      sent: this.#sent,
      dropped: this.#q.dropped,
      failedPushes: this.#failed,
      queued: this.#q.length,
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
      ...(this.#lastSentAt !== undefined ? { lastSentAt: this.#lastSentAt } : {}),
      ...(this.#reason !== undefined ? { reason: this.#reason } : {}),
    };
  }

  /** Sends what is queued, ignoring the back-off, for at most `timeoutMs`; resolves with the counters (never rejects). */
  async flush(timeoutMs: number): Promise<ShipperStats> {
    const end = performance.now() + timeoutMs;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#push && this.#state !== "off" && performance.now() < end) {
      if (this.#inflight) {
        await Promise.race([this.#inflight, Bun.sleep(Math.max(0, end - performance.now()))]);
        continue;
      }
      if (this.#q.length === 0) break;
      const failedBefore = this.#failed;
      const p = this.#sendOne();
      await Promise.race([p, Bun.sleep(Math.max(0, end - performance.now()))]);
      if (this.#failed > failedBefore) break;
    }
    return this.stats;
  }

  #schedule(now = false): void {
    if (!this.#push || this.#state === "off" || this.#inflight || this.#q.length === 0) return;
    const waitBackoff = Math.max(0, this.#retryAt - this.#now());
    const delay = waitBackoff > 0 ? waitBackoff : now || this.#q.length >= this.#batch ? 0 : this.#interval;
    if (this.#timer && delay !== 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#sendOne();
    }, delay);
    // Shipping never keeps a process alive on its own.
    this.#timer.unref?.();
  }

  #sendOne(): Promise<void> {
    if (this.#inflight) return this.#inflight;
    const push = this.#push;
    if (!push) return Promise.resolve();
    const batch = this.#q.take(this.#batch);
    if (batch.length === 0) return Promise.resolve();
    const body = lokiPushBody(this.#labels, batch);
    this.#inflight = (async () => {
      try {
        await push(body);
        this.#sent += batch.length;
        this.#lastSentAt = this.#now();
        this.#retryAt = 0;
        if (this.#state === "failing") {
          this.#state = "shipping";
          this.#fails = 0;
          this.#onChange?.({ kind: "recovered", dropped: this.#q.dropped });
        }
      } catch (e) {
        this.#failed++;
        this.#fails++;
        this.#lastError = e instanceof Error ? e.message : String(e);
        this.#q.putBack(batch);
        this.#retryAt = this.#now() + Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(this.#fails, 10)) * (0.5 + this.#random());
        if (this.#state !== "failing" && this.#state !== "off") {
          this.#state = "failing";
          this.#onChange?.({ kind: "failing", error: this.#lastError, queued: this.#q.length });
        }
      } finally {
        this.#inflight = undefined;
      }
      this.#schedule();
    })();
    return this.#inflight;
  }
}
