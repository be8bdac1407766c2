/**
 * Output to a file descriptor (stdout, stderr, the console as PID 1) that is never
 * lost at exit and never grows without bound. Writes go out in order through
 * asynchronous write(2) (libuv), so a slow pipe or serial console does not stall
 * the agent, and `flush()` resolves when every queued byte was written: the entry
 * point awaits it before exit and PID 1 before reboot. (Bun's process.stdout drops
 * what is still buffered when process.exit() runs: 65,536 of 189,048 bytes reached a
 * pipe in issue 13.)
 *
 * Two kinds of writes: `write` for data and the final error line (always queued), and
 * `writeDroppable` for log lines, refused while more than `capBytes` wait, so a
 * blocked stderr costs at most that much memory; the logger counts the refusals and
 * says so in a `log.dropped` line once there is room again.
 */
import { write as fsWrite } from "node:fs";

/** Log bytes allowed to wait for a slow destination (docs/bounds.md). */
export const LOG_QUEUE_CAP = 1 << 20;
/** How long exit waits for a destination that does not read (docs/bounds.md). */
export const FLUSH_TIMEOUT_MS = 30_000;

/** Retry delay when the descriptor is non-blocking and full (EAGAIN). */
const EAGAIN_RETRY_MS = 5;

export class FdOutput {
  readonly #fd: number;
  readonly #capBytes: number;
  readonly #queue: Buffer[] = [];
  #pending = 0;
  #busy = false;
  #broken = false;
  #idle: (() => void)[] = [];

  constructor(fd: number, capBytes = LOG_QUEUE_CAP) {
    this.#fd = fd;
    this.#capBytes = capBytes;
  }

  /** Bytes queued and not yet written. */
  get pending(): number {
    return this.#pending;
  }

  /** Queues `text` whatever the queue holds (data, the final error line). */
  write(text: string): void {
    if (this.#broken || text === "") return;
    const b = Buffer.from(text);
    this.#queue.push(b);
    this.#pending += b.byteLength;
    this.#pump();
  }

  /** Queues `text` unless more than the cap waits already; false = dropped. */
  writeDroppable(text: string): boolean {
    if (this.#pending > this.#capBytes) return false;
    this.write(text);
    return true;
  }

  /** Resolves when everything queued is written (or the reader is gone), or after `timeoutMs`; true when all was written. */
  flush(timeoutMs = FLUSH_TIMEOUT_MS): Promise<boolean> {
    if (this.#pending === 0 || this.#broken) return Promise.resolve(!this.#broken || this.#pending === 0);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), timeoutMs);
      this.#idle.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  #pump(): void {
    if (this.#busy) return;
    const head = this.#queue[0];
    if (!head) {
      for (const f of this.#idle.splice(0)) f();
      return;
    }
    this.#busy = true;
    fsWrite(this.#fd, head, 0, head.byteLength, null, (err, n) => {
      this.#busy = false;
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") {
          this.#busy = true;
          setTimeout(() => {
            this.#busy = false;
            this.#pump();
          }, EAGAIN_RETRY_MS);
          return;
        }
        // Nobody can read what is queued: drop it (there is nowhere to say so). EPIPE: the
        // reader is gone for good. EBADF/EIO: PID 1 before its console is attached (the
        // supervisor opens /dev/console onto 0/1/2), so later writes are tried again.
        if (code === "EPIPE") this.#broken = true;
        this.#queue.length = 0;
        this.#pending = 0;
        for (const f of this.#idle.splice(0)) f();
        return;
      }
      this.#pending -= n;
      if (n < head.byteLength) this.#queue[0] = head.subarray(n);
      else this.#queue.shift();
      this.#pump();
    });
  }
}
