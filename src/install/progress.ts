/**
 * Download progress for the console: bytes, total, rate and ETA, at most one line per
 * interval (a serial console at 115200 baud is slow; a line per chunk would cost more
 * than the download). Pure: the caller passes the clock.
 */
export interface ProgressLine {
  readonly bytes: number;
  readonly total: number | undefined;
  /** Bytes per second over the last interval. */
  readonly rate: number;
  /** Seconds left at that rate, undefined without a total or a rate. */
  readonly etaSeconds: number | undefined;
  readonly percent: number | undefined;
}

export class ProgressMeter {
  readonly #intervalMs: number;
  #lastAt: number;
  #lastBytes = 0;

  constructor(startMs: number, intervalMs = 5_000) {
    this.#intervalMs = intervalMs;
    this.#lastAt = startMs;
  }

  /** Called for every chunk; answers a line when one is due. `force` at the end. */
  update(bytes: number, total: number | undefined, nowMs: number, force = false): ProgressLine | undefined {
    const dt = nowMs - this.#lastAt;
    if (!force && dt < this.#intervalMs) return undefined;
    const rate = dt > 0 ? Math.round(((bytes - this.#lastBytes) * 1000) / dt) : 0;
    this.#lastAt = nowMs;
    this.#lastBytes = bytes;
    const left = total !== undefined ? Math.max(0, total - bytes) : undefined;
    return {
      bytes,
      total,
      rate,
      etaSeconds: left !== undefined && rate > 0 ? Math.round(left / rate) : undefined,
      percent: total ? Math.floor((bytes * 100) / total) : undefined,
    };
  }

  /** A restart (no Range support) begins counting again. */
  reset(nowMs: number): void {
    this.#lastAt = nowMs;
    this.#lastBytes = 0;
  }
}

const MIB = 1 << 20;

export function formatProgress(p: ProgressLine): string {
  const done = `${(p.bytes / MIB).toFixed(1)} MiB`;
  const of = p.total !== undefined ? ` of ${(p.total / MIB).toFixed(1)} MiB (${p.percent}%)` : "";
  const eta = p.etaSeconds !== undefined ? `, ETA ${p.etaSeconds} s` : "";
  return `image: ${done}${of} at ${(p.rate / MIB).toFixed(1)} MiB/s${eta}`;
}
