import { describe, expect, test } from "bun:test";
import { codeFromHttpStatus, ConnectError, connectError, parseConnectError } from "../../../src/clients/api/connect-error.ts";
import { AgentError } from "../../../src/platform/errors.ts";

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

describe("connect errors", () => {
  test("unauthenticated and permission_denied are auth errors, exit code 21", () => {
    for (const code of ["unauthenticated", "permission_denied"] as const) {
      const e = connectError("apiserver X/Send", code, "bad token");
      expect(e.code).toBe("auth");
      expect(e.exitCode).toBe(21);
      expect(e.message).toBe(`apiserver X/Send: ${code}: bad token (the machine token was refused)`);
    }
  });

  test("unavailable is retryable and, finally, unreachable", () => {
    const e = connectError("x", "unavailable", "");
    expect(e.code).toBe("unreachable");
    expect(e.retryable).toBe(true);
    expect(e.details.retryable).toBe(true);
  });

  test("other codes are api_error with the connect code kept", () => {
    for (const code of ["not_found", "deadline_exceeded", "invalid_argument", "internal"] as const) {
      const e = connectError("x", code, "m");
      expect(e.code).toBe("api_error");
      expect(e.exitCode).toBe(25);
      expect([e.connectCode, e.connectMessage, e.retryable]).toEqual([code, "m", false]);
      expect(e.details.connectCode).toBe(code);
      expect(e.details.retryable).toBe(false);
    }
  });

  test("a ConnectError is an AgentError whose typed facts and log details agree", () => {
    const e = connectError("apiserver X/Register", "failed_precondition", "not connected to exactly two switches", { status: 400, attempts: 1 });
    expect(e).toBeInstanceOf(ConnectError);
    expect(e).toBeInstanceOf(AgentError);
    expect(e.details).toEqual({ status: 400, attempts: 1, connectCode: "failed_precondition", connectMessage: "not connected to exactly two switches", retryable: false });
    // Details given by a caller cannot contradict the typed facts in the log line.
    const w = new ConnectError("wrapped", "unavailable", "", { connectCode: "not_found", retryable: false, uuid: "u" });
    expect(w.details).toEqual({ connectCode: "unavailable", connectMessage: "", retryable: true, uuid: "u" });
    expect([w.code, w.retryable]).toEqual(["unreachable", true]);
  });

  test("a connect error body is read; a non-connect body falls back to the HTTP status", () => {
    expect(parseConnectError(404, json({ code: "not_found", message: "no machine" }))).toEqual({ code: "not_found", message: "no machine" });
    expect(parseConnectError(401, new TextEncoder().encode("<html>"))).toEqual({ code: "unauthenticated", message: "HTTP 401" });
    expect(parseConnectError(503, json({ code: "bogus" }))).toEqual({ code: "unavailable", message: "HTTP 503" });
    expect(parseConnectError(200, { code: "aborted" })).toEqual({ code: "aborted", message: "" });
  });

  test("HTTP status to connect code follows the protocol table", () => {
    expect([400, 401, 403, 404, 408, 429, 502, 503, 504, 500].map(codeFromHttpStatus)).toEqual([
      "internal",
      "unauthenticated",
      "permission_denied",
      "unimplemented",
      "deadline_exceeded",
      "unavailable",
      "unavailable",
      "unavailable",
      "unavailable",
      "unknown",
    ]);
  });
});
