/**
 * One error type for the whole agent. `code` says what went wrong in a way a
 * program can branch on; `exitCode` is derived from it (see exit-codes.ts), so the
 * top level never guesses. `details` carries what happened (never secrets).
 */
import { EXIT_CODES, type ErrorCode } from "./exit-codes.ts";

export type { ErrorCode } from "./exit-codes.ts";

export class AgentError extends Error {
  override readonly name = "AgentError";
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
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
