/**
 * The apiserver behind a load balancer whose backends are partly down: for `ms` from the
 * first request after it is set (armed at power-on, it opens with the boot storm however
 * long the machines take to get there), every `every`-th request (by a counter, not at random, so a test can
 * be exact: the 3rd, 6th, 9th, ... with every = 3) is answered by the balancer itself with
 * HTTP 503 and a plain-text body, never reaching the apiserver. A Connect client maps a
 * 503 without a Connect error body to the code `unavailable` (connectrpc.com/docs/protocol
 * "HTTP to Error Code"; connect-es 2.3.0 `protocol-connect/http-status.ts`
 * codeFromHttpStatus). The window counts the requests it saw and the 503s it sent: with
 * n requests in the window, exactly floor(n / every) were 503. Pure: the clock comes in.
 */

export interface UnavailableSpec {
  /** Every this many-th request is answered 503 (2..1000). */
  readonly every: number;
  /** For this long from the first request after it is set (0..600000 ms). */
  readonly ms: number;
}

export interface UnavailableReport {
  readonly every: number;
  readonly ms: number;
  /** When the window opened (its first request) and closes (ms since epoch); null while armed or before the first one. */
  readonly startedAt: number | null;
  readonly endsAt: number | null;
  readonly active: boolean;
  /** Requests seen inside the window, and how many of them were answered 503. */
  readonly requests: number;
  readonly unavailable: number;
}

/** The body a balancer sends with its own 503 (envoy's words when no backend is healthy). */
export const BALANCER_BODY = "no healthy upstream";

/** The spec from a control request's JSON, or an error naming what was expected. */
export function parseUnavailableSpec(v: unknown): UnavailableSpec | { readonly error: string } {
  const o = (v && typeof v === "object" ? v : {}) as { every?: unknown; ms?: unknown };
  const every = o.every;
  const ms = o.ms;
  if (typeof every !== "number" || !Number.isInteger(every) || every < 2 || every > 1000)
    return { error: `expected {every, ms}: every an integer 2..1000 (every every-th request is answered 503), got ${JSON.stringify(every)}` };
  if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > 600_000) return { error: `expected {every, ms}: ms an integer 0..600000, got ${JSON.stringify(ms)}` };
  return { every, ms };
}

export class UnavailableWindow {
  #spec: UnavailableSpec = { every: 0, ms: 0 };
  #startedAt: number | null = null;
  #requests = 0;
  #unavailable = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Arms a new window, opened by the next request; the counts start again from zero. */
  set(spec: UnavailableSpec): UnavailableReport {
    this.#spec = spec;
    this.#startedAt = null;
    this.#requests = 0;
    this.#unavailable = 0;
    return this.report();
  }

  /** Set and not yet opened by a request. */
  #armed(): boolean {
    return this.#spec.every > 0 && this.#startedAt === null;
  }

  #active(t: number): boolean {
    return this.#startedAt !== null && t < this.#startedAt + this.#spec.ms;
  }

  /** One request arrived: whether the balancer answers it 503 (counted when inside the window). */
  take(): boolean {
    const t = this.now();
    if (this.#armed()) this.#startedAt = t;
    if (!this.#active(t)) return false;
    this.#requests += 1;
    if (this.#requests % this.#spec.every !== 0) return false;
    this.#unavailable += 1;
    return true;
  }

  report(): UnavailableReport {
    const s = this.#startedAt;
    return {
      every: this.#spec.every,
      ms: this.#spec.ms,
      startedAt: s,
      endsAt: s === null ? null : s + this.#spec.ms,
      active: this.#armed() || this.#active(this.now()),
      requests: this.#requests,
      unavailable: this.#unavailable,
    };
  }
}
