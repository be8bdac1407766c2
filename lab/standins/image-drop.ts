/**
 * The image cache dropping its connections: for a window (opening `delayMs` after it is
 * set, lasting `ms`) every connection serving the image is closed by the server after at
 * most `afterBytes` bytes of its body (a TCP close with the body short of its
 * Content-Length, never an HTTP error): a cache node restarting or a proxy in front of it
 * timing connections out. A connection whose body is already past `afterBytes` when the
 * window opens is closed at its next chunk. Outside the window the image is served whole.
 * With `holdFor: n` the window opens (delayMs later) once the n-th image GET after the set
 * arrived, and the GETs before it wait for that moment (the server bounds the wait,
 * image-server.ts): a rig's way to start a rack's downloads together, so that every
 * machine's download meets the window from its start (processes started at once on a
 * loaded host reach the network seconds apart).
 * The window counts, by client address, the image GETs it saw from when it was set, those
 * asking for a Range (resumes) and those without (a download from byte 0), and the
 * connections it dropped. Pure: the clock comes in; image-server.ts does the I/O.
 */

export interface ImageDropSpec {
  /** Each connection's body is cut after at most this many bytes (1..1 GiB). */
  readonly afterBytes: number;
  /** The window lasts this long (0..600000 ms)... */
  readonly ms: number;
  /** ...from this long after it is set, or after the holdFor-th image GET (0..600000 ms, default 0). */
  readonly delayMs: number;
  /** 0 (default): delayMs counts from the set; n: from the n-th image GET, the ones before held until it (0..10000). */
  readonly holdFor: number;
}

export interface ImageDropCounts {
  /** Image GETs (HEAD not counted). */
  readonly gets: number;
  /** Of them with a `Range: bytes=N-` header (answered 206), and without (answered from byte 0). */
  readonly ranges: number;
  readonly fromZero: number;
  /** Connections the window closed mid-body. */
  readonly dropped: number;
}

export interface ImageDropReport extends ImageDropCounts {
  readonly afterBytes: number;
  readonly ms: number;
  readonly delayMs: number;
  /** When the window opens and closes (ms since epoch); null before one is set (or, with holdFor, before that GET). */
  readonly startsAt: number | null;
  readonly endsAt: number | null;
  readonly active: boolean;
  /** The same counts per client address (as the server saw it). */
  readonly bySource: Readonly<Record<string, ImageDropCounts>>;
}

const MAX_BYTES = 1 << 30;
const MAX_MS = 600_000;

/** The spec from a control request's JSON, or an error naming what was expected. */
export function parseImageDropSpec(v: unknown): ImageDropSpec | { readonly error: string } {
  const o = (v && typeof v === "object" ? v : {}) as { afterBytes?: unknown; ms?: unknown; delayMs?: unknown; holdFor?: unknown };
  const int = (x: unknown, lo: number, hi: number) => typeof x === "number" && Number.isInteger(x) && x >= lo && x <= hi;
  const expected = "expected {afterBytes, ms, delayMs?, holdFor?}";
  if (!int(o.afterBytes, 1, MAX_BYTES))
    return { error: `${expected}: afterBytes an integer 1..${MAX_BYTES} (each connection's body is cut after that many bytes), got ${JSON.stringify(o.afterBytes)}` };
  if (!int(o.ms, 0, MAX_MS)) return { error: `${expected}: ms an integer 0..${MAX_MS}, got ${JSON.stringify(o.ms)}` };
  if (o.delayMs !== undefined && !int(o.delayMs, 0, MAX_MS)) return { error: `${expected}: delayMs an integer 0..${MAX_MS}, got ${JSON.stringify(o.delayMs)}` };
  if (o.holdFor !== undefined && !int(o.holdFor, 0, 10_000))
    return { error: `${expected}: holdFor an integer 0..10000 (the window opens at that image GET, the ones before wait for it), got ${JSON.stringify(o.holdFor)}` };
  return { afterBytes: o.afterBytes as number, ms: o.ms as number, delayMs: (o.delayMs as number | undefined) ?? 0, holdFor: (o.holdFor as number | undefined) ?? 0 };
}

interface Counts {
  gets: number;
  ranges: number;
  fromZero: number;
  dropped: number;
}

const zero = (): Counts => ({ gets: 0, ranges: 0, fromZero: 0, dropped: 0 });

export class ImageDropWindow {
  #spec: ImageDropSpec = { afterBytes: 0, ms: 0, delayMs: 0, holdFor: 0 };
  #setAt: number | null = null;
  /** When delayMs counts from: the set, or the holdFor-th image GET after it (null until it came). */
  #from: number | null = null;
  /** The held GETs' release (called when the window's start is known). */
  #held: (() => void)[] = [];
  #total: Counts = zero();
  #bySource = new Map<string, Counts>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Sets a new window; the counts start again from zero. */
  set(spec: ImageDropSpec): ImageDropReport {
    this.#spec = spec;
    this.#setAt = this.now();
    this.#release();
    this.#from = spec.holdFor === 0 ? this.#setAt : null;
    this.#total = zero();
    this.#bySource = new Map();
    return this.report();
  }

  #active(t: number): boolean {
    if (this.#from === null) return false;
    const start = this.#from + this.#spec.delayMs;
    return t >= start && t < start + this.#spec.ms;
  }

  #of(source: string | null): Counts[] {
    if (this.#setAt === null) return [];
    const key = source ?? "(unknown)";
    let c = this.#bySource.get(key);
    if (!c) this.#bySource.set(key, (c = zero()));
    return [this.#total, c];
  }

  /**
   * An image GET arrived (counted once a window has been set): resolves when it may be
   * answered, at once unless the window holds GETs until its holdFor-th.
   */
  request(source: string | null, range: boolean): Promise<void> {
    for (const c of this.#of(source)) {
      c.gets++;
      if (range) c.ranges++;
      else c.fromZero++;
    }
    if (this.#setAt === null || this.#from !== null) return Promise.resolve();
    if (this.#total.gets >= this.#spec.holdFor) {
      this.open();
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#held.push(resolve));
  }

  /** Starts the window now if it is still holding GETs (the server's bound on the hold), and lets them go. */
  open(): void {
    if (this.#setAt !== null && this.#from === null) this.#from = this.now();
    this.#release();
  }

  #release(): void {
    for (const r of this.#held.splice(0)) r();
  }

  /**
   * A connection has sent `sent` body bytes and would send `next` more: how many of them
   * it may still send before the server closes it (0: close now), or undefined (no cut).
   */
  allowance(sent: number, next: number): number | undefined {
    if (!this.#active(this.now())) return undefined;
    const left = Math.max(0, this.#spec.afterBytes - sent);
    return left >= next ? undefined : left;
  }

  /** The server closed a connection mid-body for the window. */
  dropped(source: string | null): void {
    for (const c of this.#of(source)) c.dropped++;
  }

  report(): ImageDropReport {
    const startsAt = this.#from === null ? null : this.#from + this.#spec.delayMs;
    return {
      ...this.#spec,
      startsAt,
      endsAt: startsAt === null ? null : startsAt + this.#spec.ms,
      active: this.#active(this.now()),
      ...this.#total,
      bySource: Object.fromEntries([...this.#bySource].map(([k, v]) => [k, { ...v }])),
    };
  }
}
