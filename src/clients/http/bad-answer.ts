/**
 * An answer the agent cannot use (`bad_answer`, exit 24), with the one fact callers
 * branch on typed: `violation`. true: the server broke HTTP, the protocol or the schema
 * (an oversized body, invalid JSON, a field of the wrong type), and asking again gives
 * the same; false: a stream was cut short (a truncated envelope, no end-of-stream),
 * which a reconnect may heal (agent/wait-policy.ts). The flag is in the log
 * line's details too, from the same value.
 */
import { AgentError, type AgentErrorOptions } from "../../platform/errors.ts";

export class BadAnswerError extends AgentError {
  readonly violation: boolean;

  constructor(message: string, violation: boolean, details: Record<string, unknown> = {}, options: AgentErrorOptions = {}) {
    super("bad_answer", message, { ...details, violation }, options);
    this.violation = violation;
  }
}
