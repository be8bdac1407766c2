/**
 * A request that failed before an answer (classify.ts transportError): `tls` or
 * `unreachable`, with the error code it was classified by typed: `errorCode`, the first
 * code along the cause chain (undici's UND_ERR_*, a system ECONNREFUSED, a TLS
 * CERT_HAS_EXPIRED; "unknown" when there is none), the one in brackets in the message.
 * The code is in the log line's details too, from the same value.
 */
import { AgentError, type AgentErrorOptions } from "../../platform/errors.ts";

export class TransportError extends AgentError {
  readonly errorCode: string;

  constructor(code: "tls" | "unreachable", message: string, errorCode: string, details: Record<string, unknown> = {}, options: AgentErrorOptions = {}) {
    super(code, message, { ...details, errorCode }, options);
    this.errorCode = errorCode;
  }
}
