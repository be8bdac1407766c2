/**
 * When to reconnect BootService/Wait and when to give up. Pure: the clock and the
 * random value come in as arguments, so the tests drive it with a fake clock.
 *
 * - The whole wait is bounded by METAL_WAIT_TIMEOUT from the first call (reconnects
 *   included); a reconnect whose delay would end after the deadline is not made.
 * - A broken stream is reopened after a full-jitter delay: random() * min(cap,
 *   base * 2^n), n counting the consecutive breaks; at least `minMs` so a server
 *   that closes at once cannot turn the loop into a busy one.
 * - A stream that stayed open for `healthyMs` counts as having worked: the next break
 *   starts the backoff from the beginning again (a server restart after hours of
 *   waiting reconnects fast).
 * - One stream lives at most `streamMs` (or what is left of the bound): then it is
 *   closed and reopened. A server may hold back even the answer's headers until it has
 *   a message (the stand-in, served by Bun, does), so silence cannot tell a waiting
 *   server from a dead connection; recycling the stream bounds how long a dead one
 *   goes unnoticed without a timeout that would fire on a healthy wait.
 */
import type { AgentError } from "../platform/errors.ts";
import { ConnectError, type ConnectCode } from "../clients/api/connect-error.ts";
import { BadAnswerError } from "../clients/http/bad-answer.ts";
import { fullJitter } from "../clients/http/retry.ts";

export interface WaitPolicy {
  readonly timeoutMs: number;
  readonly baseMs: number;
  readonly capMs: number;
  readonly minMs: number;
  readonly healthyMs: number;
  readonly streamMs: number;
}

export const WAIT_BACKOFF = { baseMs: 1_000, capMs: 30_000, minMs: 100, healthyMs: 60_000, streamMs: 600_000 } as const;

export type WaitDecision = { readonly kind: "reconnect"; readonly reconnect: number; readonly delayMs: number } | { readonly kind: "timeout"; readonly waitedMs: number };

export class WaitTracker {
  readonly #p: WaitPolicy;
  readonly #start: number;
  #openedAt: number;
  #breaks = 0;
  #reconnects = 0;

  constructor(policy: WaitPolicy, nowMs: number) {
    this.#p = policy;
    this.#start = nowMs;
    this.#openedAt = nowMs;
  }

  get deadlineMs(): number {
    return this.#start + this.#p.timeoutMs;
  }

  get reconnects(): number {
    return this.#reconnects;
  }

  waitedMs(nowMs: number): number {
    return nowMs - this.#start;
  }

  expired(nowMs: number): boolean {
    return nowMs >= this.deadlineMs;
  }

  /** A stream was opened (the first one, or a reconnect); returns how long it may live. */
  opened(nowMs: number): number {
    this.#openedAt = nowMs;
    return Math.max(0, Math.min(this.#p.streamMs, this.deadlineMs - nowMs));
  }

  /** The stream ended or failed without an allocation: reconnect after a delay, or time out. */
  broke(nowMs: number, random: number): WaitDecision {
    if (nowMs - this.#openedAt >= this.#p.healthyMs) this.#breaks = 0;
    const delayMs = Math.max(this.#p.minMs, fullJitter(this.#breaks, this.#p.baseMs, this.#p.capMs, random));
    this.#breaks += 1;
    if (nowMs + delayMs >= this.deadlineMs) return { kind: "timeout", waitedMs: this.waitedMs(nowMs) };
    this.#reconnects += 1;
    return { kind: "reconnect", reconnect: this.#reconnects, delayMs };
  }
}

/** Connect codes after which reopening the stream may help (the server restarted, a proxy cut the stream). */
const RECONNECT_CODES: ReadonlySet<ConnectCode> = new Set<ConnectCode>(["unavailable", "deadline_exceeded", "internal", "unknown", "aborted", "canceled", "resource_exhausted"]);

/**
 * Whether a failed Wait is worth reopening: transport failures (unreachable), cut
 * streams (a BadAnswerError that is no `violation`) and the transient connect codes. A
 * refused token, TLS, answers such as not_found or invalid_argument, and a bad_answer
 * that does not say it was cut end the wait.
 */
export function isWaitRetryable(e: AgentError): boolean {
  if (e.code === "unreachable") return true;
  // A cut stream may heal on reconnect; an answer that breaks the protocol or the schema does not (exit 24, naming it).
  if (e instanceof BadAnswerError) return !e.violation;
  if (e instanceof ConnectError) return e.code === "api_error" && RECONNECT_CODES.has(e.connectCode);
  return false;
}
