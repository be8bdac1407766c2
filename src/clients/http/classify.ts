/**
 * Turns what undici/Bun throw into the agent's error codes, and says which failures
 * are worth a retry. Pure: looks only at error codes along the `cause` chain.
 * Retryable: connect-level failures (refused, unreachable, reset, connect timeout,
 * temporary DNS failure). Not retryable: TLS verification (a retry cannot fix a wrong
 * CA, and a storm of handshakes helps nobody), unknown host names, header/body timeouts.
 */
import { AgentError } from "../../platform/errors.ts";
import { BadAnswerError } from "./bad-answer.ts";
import { TransportError } from "./transport-error.ts";

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  // A connection closed on this side because its uplink went or failed (uplink-connect.ts).
  "ECONNABORTED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "ETIMEDOUT",
  "EADDRNOTAVAIL",
  "EPIPE",
  "EAI_AGAIN",
  "ConnectionRefused",
  "ConnectionClosed",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "DEADLINE"]);
/** undici's codes for an answer that breaks HTTP itself (HTTPParserError carries HPE_* or no code at all). */
const MALFORMED_CODES = new Set(["UND_ERR_RES_CONTENT_LENGTH_MISMATCH", "UND_ERR_RES_EXCEEDED_MAX_SIZE", "UND_ERR_INFO"]);

/** Whether the error (or one of its causes) says the server's bytes were not valid HTTP/1.1. */
function isMalformed(e: unknown): boolean {
  let cur: unknown = e;
  for (let i = 0; i < 6 && cur && typeof cur === "object"; i++) {
    const { name, code } = cur as { name?: unknown; code?: unknown };
    if (name === "HTTPParserError" || (typeof code === "string" && (code.startsWith("HPE_") || MALFORMED_CODES.has(code)))) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
const DNS_CODES = new Set(["ENOTFOUND", "EAI_NONAME", "EAI_FAIL", "DNSException"]);

function isTlsCode(code: string): boolean {
  return /CERT|SSL|TLS|SIGNATURE|ISSUER|HOSTNAME|ALTNAME|EPROTO|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET/i.test(code);
}

/** The first error code found along the cause chain (depth-bounded). */
export function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 6 && cur && typeof cur === "object"; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function deepMessage(e: unknown): string {
  let cur: unknown = e;
  let msg = "";
  for (let i = 0; i < 6 && cur && typeof cur === "object"; i++) {
    const m = (cur as { message?: unknown }).message;
    if (typeof m === "string" && m !== "" && !msg.includes(m)) msg = msg ? `${msg}: ${m}` : m;
    cur = (cur as { cause?: unknown }).cause;
  }
  return msg || String(e);
}

export type FailureKind = "connect" | "tls" | "dns" | "timeout" | "malformed" | "other";

export function failureKind(e: unknown): FailureKind {
  if (isMalformed(e)) return "malformed";
  const code = errorCode(e);
  if (code === undefined) return "other";
  if (CONNECT_CODES.has(code)) return "connect";
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (DNS_CODES.has(code)) return "dns";
  if (isTlsCode(code)) return "tls";
  return "other";
}

/** Retries fix only connect-level failures (and retryable statuses, handled by the caller); an AgentError's producer says it. */
export function isRetryableFailure(e: unknown): boolean {
  if (e instanceof AgentError) return e.retryable;
  return failureKind(e) === "connect";
}

/** The AgentError for a request that failed before an answer (what = "metal-boot config", ...). */
export function transportError(e: unknown, what: string, url: URL, extra: { attempts: number; trust?: string; phase?: "body" }): AgentError {
  if (e instanceof AgentError) return e;
  const code = errorCode(e) ?? "unknown";
  const target = `${what} (${url.origin})`;
  const details = { url: url.href, attempts: extra.attempts };
  switch (failureKind(e)) {
    case "tls":
      return new TransportError("tls", `${target}: TLS verification failed: ${deepMessage(e)} [${code}]; trusted CAs: ${extra.trust ?? "system"}`, code, details, { cause: e });
    case "dns":
      return new TransportError("unreachable", `${target}: cannot resolve host ${url.hostname} [${code}] (DNS servers from /etc/resolv.conf)`, code, details, { cause: e });
    case "malformed":
      // Not retried: a server that speaks broken HTTP does not heal in a second.
      return new BadAnswerError(
        `${target}: the answer is not valid HTTP/1.1: ${deepMessage(e)} [${code === "unknown" ? "HTTPParserError" : code}]`,
        true,
        { ...details, errorCode: code },
        { cause: e },
      );
    case "timeout":
      return new TransportError("unreachable", `${target}: no answer in time: ${deepMessage(e)} [${code}] (bounds: docs/bounds.md)`, code, details, { cause: e });
    case "connect":
      // A reset or close while the answer streams is not a failure to connect.
      if (extra.phase === "body")
        return new TransportError(
          "unreachable",
          `${target}: the connection broke while the answer streamed: ${deepMessage(e)} [${code}]`,
          code,
          { ...details, phase: "body" },
          { cause: e },
        );
      return new TransportError("unreachable", `${target}: cannot connect after ${extra.attempts} attempt(s): ${deepMessage(e)} [${code}]`, code, details, { cause: e });
    default:
      return new TransportError("unreachable", `${target}: request failed: ${deepMessage(e)} [${code}]`, code, details, { cause: e });
  }
}

/**
 * What an HTTP status says about another attempt. "retry": the request was not served
 * and may be next time (408 request timeout, 429 too many requests, 502/503/504 the
 * gateway/overload family). "server_error": 500, which may be a bug on the server as
 * well as a passing fault, so the caller retries it only a bounded few times. "final":
 * everything else (other 4xx are the request's own fault, a retry changes nothing). Pure.
 */
export type StatusRetry = "retry" | "server_error" | "final";

const RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

export function statusRetry(status: number): StatusRetry {
  if (RETRYABLE_STATUS.has(status)) return "retry";
  return status === 500 ? "server_error" : "final";
}

/**
 * Whether a failure while a long download is open or streaming is worth another
 * attempt (the image download resumes it): connect-level failures as for any request,
 * and timeouts too (a stalled body is resumed from where it broke). Never TLS, DNS or
 * a malformed answer. Looks at AgentError codes and the error codes along the cause
 * chain, never at message text. Pure.
 */
export function isRetryableStreamFailure(e: unknown): boolean {
  if (e instanceof AgentError) {
    if (e.code !== "unreachable") return false;
    const cause = (e as { cause?: unknown }).cause;
    if (cause === undefined) return false;
    const kind = failureKind(cause);
    return kind === "connect" || kind === "timeout";
  }
  const kind = failureKind(e);
  return kind === "connect" || kind === "timeout";
}
