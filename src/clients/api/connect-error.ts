/**
 * Connect error codes (connectrpc.com/docs/protocol, "Error codes") -> the agent's
 * error codes. Pure. unauthenticated/permission_denied are `auth` (exit 21);
 * unavailable is retryable and, when retries run out, `unreachable`; the rest are
 * `api_error`. The thrown error is a ConnectError: the connect code and the server's
 * message are typed fields callers branch on (and in the message and the log line's
 * details, from the same values).
 */
import { z } from "zod";
import { AgentError, type AgentErrorOptions, type ErrorCode } from "../../platform/errors.ts";

export const CONNECT_CODES = [
  "canceled",
  "unknown",
  "invalid_argument",
  "deadline_exceeded",
  "not_found",
  "already_exists",
  "permission_denied",
  "resource_exhausted",
  "failed_precondition",
  "aborted",
  "out_of_range",
  "unimplemented",
  "internal",
  "unavailable",
  "data_loss",
  "unauthenticated",
] as const;
export type ConnectCode = (typeof CONNECT_CODES)[number];

export const ConnectErrorBody = z.object({ code: z.enum(CONNECT_CODES), message: z.string().optional() });

/** The connect code implied by an HTTP status when the body is not a connect error (protocol spec table). */
export function codeFromHttpStatus(status: number): ConnectCode {
  switch (status) {
    case 400:
      return "internal";
    case 401:
      return "unauthenticated";
    case 403:
      return "permission_denied";
    case 404:
      return "unimplemented";
    case 408:
      return "deadline_exceeded";
    case 429:
    case 502:
    case 503:
    case 504:
      return "unavailable";
    default:
      return "unknown";
  }
}

export function agentCodeFor(code: ConnectCode): ErrorCode {
  switch (code) {
    case "unauthenticated":
    case "permission_denied":
      return "auth";
    case "unavailable":
      return "unreachable";
    default:
      return "api_error";
  }
}

export function isRetryableConnectCode(code: ConnectCode): boolean {
  return code === "unavailable";
}

/** Parses an error body (JSON or not) into code + message. */
export function parseConnectError(status: number, body: Uint8Array | unknown): { code: ConnectCode; message: string } {
  let raw: unknown = body;
  if (body instanceof Uint8Array) {
    try {
      raw = JSON.parse(new TextDecoder().decode(body));
    } catch {
      raw = undefined;
    }
  }
  const r = ConnectErrorBody.safeParse(raw);
  if (r.success) return { code: r.data.code, message: r.data.message ?? "" };
  return { code: codeFromHttpStatus(status), message: `HTTP ${status}` };
}

/** An error answer of the apiserver: the agent's code and `retryable` follow from the connect code. */
export class ConnectError extends AgentError {
  readonly connectCode: ConnectCode;
  /** The server's message ("" when it gave none). */
  readonly connectMessage: string;

  constructor(message: string, connectCode: ConnectCode, connectMessage: string, details: Record<string, unknown> = {}, options: Pick<AgentErrorOptions, "cause"> = {}) {
    const retryable = isRetryableConnectCode(connectCode);
    super(agentCodeFor(connectCode), message, { ...details, connectCode, connectMessage, retryable }, { ...options, retryable });
    this.connectCode = connectCode;
    this.connectMessage = connectMessage;
  }
}

/** The ConnectError for `what` ("apiserver <procedure>"), the code and message in its text. */
export function connectError(what: string, code: ConnectCode, message: string, extra: Record<string, unknown> = {}): ConnectError {
  const hint = code === "unauthenticated" || code === "permission_denied" ? " (the machine token was refused)" : "";
  return new ConnectError(`${what}: ${code}${message ? `: ${message}` : ""}${hint}`, code, message, extra);
}
