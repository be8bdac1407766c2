import { describe, expect, test } from "bun:test";
import { failureKind, isRetryableFailure, isRetryableStreamFailure, statusRetry, transportError } from "../../../src/clients/http/classify.ts";
import { BadAnswerError } from "../../../src/clients/http/bad-answer.ts";
import { TransportError } from "../../../src/clients/http/transport-error.ts";
import { AgentError } from "../../../src/platform/errors.ts";

const err = (code: string, message = code, cause?: unknown) => Object.assign(new Error(message), { code }, cause ? { cause } : {});
const url = new URL("https://[fd00::1]:8443/config/x");

describe("classify", () => {
  test("connect-level failures are retryable", () => {
    for (const c of ["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT", "ECONNRESET", "EAI_AGAIN"]) {
      expect(failureKind(err(c))).toBe("connect");
      expect(isRetryableFailure(err(c))).toBe(true);
    }
  });

  test("TLS failures, unknown names and header timeouts are not retried", () => {
    for (const c of ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "SELF_SIGNED_CERT_IN_CHAIN", "ERR_TLS_CERT_ALTNAME_INVALID", "CERT_HAS_EXPIRED", "ENOTFOUND", "UND_ERR_HEADERS_TIMEOUT"]) {
      expect(isRetryableFailure(err(c))).toBe(false);
    }
  });

  test("a code deeper in the cause chain is found", () => {
    expect(failureKind(new Error("fetch failed", { cause: err("ECONNREFUSED") }))).toBe("connect");
  });

  test("a TLS failure becomes exit code 22 naming the server and the trusted CAs", () => {
    const e = transportError(err("UNABLE_TO_VERIFY_LEAF_SIGNATURE", "unable to verify the first certificate"), "metal-boot config", url, {
      attempts: 1,
      trust: "/ca.pem (METAL_CA)",
    });
    expect(e.code).toBe("tls");
    expect(e.exitCode).toBe(22);
    // The code it was classified by is typed, and in the log line's details as well.
    expect(e instanceof TransportError && e.errorCode).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    expect(e.details).toEqual({ url: url.href, attempts: 1, errorCode: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
    expect(e.message).toBe(
      "metal-boot config (https://[fd00::1]:8443): TLS verification failed: unable to verify the first certificate [UNABLE_TO_VERIFY_LEAF_SIGNATURE]; trusted CAs: /ca.pem (METAL_CA)",
    );
  });

  test("connect failures become unreachable (23) with the attempt count", () => {
    const e = transportError(err("ECONNREFUSED", "connect ECONNREFUSED"), "apiserver X", url, { attempts: 4 });
    expect(e.code).toBe("unreachable");
    expect(e.exitCode).toBe(23);
    expect(e.message).toContain("after 4 attempt(s)");
  });

  test("a reset while the answer streams says the connection broke, not that it could not connect", () => {
    const e = transportError(err("ECONNRESET", "read ECONNRESET"), "apiserver Wait (stream)", url, { attempts: 1, phase: "body" });
    expect(e.code).toBe("unreachable");
    expect(e.message).toBe("apiserver Wait (stream) (https://[fd00::1]:8443): the connection broke while the answer streamed: read ECONNRESET [ECONNRESET]");
  });

  test("an AgentError passes through unchanged", () => {
    const a = new AgentError("auth", "no");
    expect(transportError(a, "x", url, { attempts: 1 })).toBe(a);
  });

  test("an answer that is not HTTP is a BadAnswerError with violation, typed and in the details", () => {
    const e = transportError(Object.assign(new Error("Response does not match the HTTP/1.1 protocol"), { name: "HTTPParserError" }), "metal-boot config", url, { attempts: 1 });
    expect(e instanceof BadAnswerError && e.violation).toBe(true);
    expect([e.code, e.details.violation, e.details.errorCode]).toEqual(["bad_answer", true, "unknown"]);
  });

  test("an AgentError is retried when its producer says so (the retryable field), never by its details", () => {
    expect(isRetryableFailure(new AgentError("unreachable", "x", {}, { retryable: true }))).toBe(true);
    expect(isRetryableFailure(new AgentError("unreachable", "x", { retryable: true }))).toBe(false);
    expect(isRetryableFailure(new AgentError("unreachable", "x"))).toBe(false);
  });

  test("statuses: 408, 429 and the gateway family are retried, 500 within a budget, other statuses never", () => {
    const got = Object.fromEntries([200, 206, 400, 401, 403, 404, 408, 409, 429, 500, 501, 502, 503, 504, 505, 599].map((s) => [s, statusRetry(s)]));
    expect(got).toEqual({
      200: "final",
      206: "final",
      400: "final",
      401: "final",
      403: "final",
      404: "final",
      408: "retry",
      409: "final",
      429: "retry",
      500: "server_error",
      501: "final",
      502: "retry",
      503: "retry",
      504: "retry",
      505: "final",
      599: "final",
    });
  });

  test("a stream failure is retried on connect codes and timeouts, by code along the cause chain", () => {
    for (const c of ["ECONNRESET", "ECONNREFUSED", "ConnectionClosed", "UND_ERR_SOCKET", "UND_ERR_BODY_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "DEADLINE"]) {
      expect([c, isRetryableStreamFailure(err(c))]).toEqual([c, true]);
      expect([c, isRetryableStreamFailure(new Error("fetch failed", { cause: err(c) }))]).toEqual([c, true]);
      expect([c, isRetryableStreamFailure(transportError(err(c), "image download", url, { attempts: 1 }))]).toEqual([c, true]);
    }
    for (const c of ["ENOTFOUND", "CERT_HAS_EXPIRED", "HPE_INVALID_CONSTANT", "ENOSPC"]) {
      expect([c, isRetryableStreamFailure(err(c))]).toEqual([c, false]);
      expect([c, isRetryableStreamFailure(transportError(err(c), "image download", url, { attempts: 1 }))]).toEqual([c, false]);
    }
  });

  test("a stream failure is never classified by its message text", () => {
    for (const m of ["other side closed", "The operation was aborted", "terminated", "socket hang up", "premature close", "connection reset"]) {
      expect([m, isRetryableStreamFailure(new Error(m))]).toEqual([m, false]);
    }
  });

  test("an AgentError is retried only as a transport failure with a retryable cause", () => {
    expect(isRetryableStreamFailure(new AgentError("unreachable", "x", {}, { cause: err("ECONNRESET") }))).toBe(true);
    expect(isRetryableStreamFailure(new AgentError("unreachable", "x"))).toBe(false);
    expect(isRetryableStreamFailure(new AgentError("tls", "bad cert", {}, { cause: err("ECONNRESET") }))).toBe(false);
    expect(isRetryableStreamFailure(new AgentError("image_download", "answered 404"))).toBe(false);
  });
});
