/**
 * One error type for the whole agent. `code` says what went wrong in a way a
 * program can branch on; `exitCode` is derived from it (see exit-codes.ts), so the
 * top level never guesses. `retryable` is the producer's word on whether another
 * attempt may succeed. A fact that a caller branches on beyond these is a typed field
 * of a subclass owned by the folder that produces it (clients/api ConnectError,
 * clients/http BadAnswerError and TransportError, machine/disk WipeFailedError).
 * `details` is log context only (spread into the log line, never secrets): no code
 * reads it to decide (test/architecture/error-details.test.ts).
 */
import { EXIT_CODES, type ErrorCode } from "./exit-codes.ts";

export type { ErrorCode } from "./exit-codes.ts";

export interface AgentErrorOptions {
  readonly cause?: unknown;
  /** Whether another attempt may succeed (retry policies read it; default false). */
  readonly retryable?: boolean;
}

export class AgentError extends Error {
  override readonly name = "AgentError";
  readonly code: ErrorCode;
  /** Log context only: what happened, for the log line. Never read to decide. */
  readonly details: Readonly<Record<string, unknown>>;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options: AgentErrorOptions = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.details = details;
    this.retryable = options.retryable === true;
  }

  get exitCode(): number {
    return EXIT_CODES[this.code].exit;
  }
}

export function isAgentError(e: unknown): e is AgentError {
  return e instanceof AgentError;
}

/** Wraps anything thrown into an AgentError, keeping AgentErrors as they are. */
export function toAgentError(e: unknown): AgentError {
  if (e instanceof AgentError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new AgentError("internal", `internal error: ${message}`, {}, { cause: e });
}
