import { describe, expect, test } from "bun:test";
import { connectError, type ConnectCode } from "../../src/clients/api/connect-error.ts";
import { BadAnswerError } from "../../src/clients/http/bad-answer.ts";
import { AgentError } from "../../src/platform/errors.ts";
import { isWaitRetryable, WaitTracker } from "../../src/agent/wait-policy.ts";

const P = { timeoutMs: 60_000, baseMs: 1_000, capMs: 8_000, minMs: 100, healthyMs: 30_000, streamMs: 20_000 };

describe("WaitTracker (fake clock)", () => {
  test("consecutive breaks back off exponentially with full jitter, capped", () => {
    const t = new WaitTracker(P, 0);
    const delays: number[] = [];
    let now = 0;
    for (let i = 0; i < 6; i++) {
      t.opened(now);
      const d = t.broke(now, 0.999);
      if (d.kind !== "reconnect") throw new Error("expected a reconnect");
      delays.push(d.delayMs);
      now += d.delayMs;
    }
    expect(delays).toEqual([999, 1998, 3996, 7992, 7992, 7992]);
    expect(t.reconnects).toBe(6);
  });

  test("the delay is never below minMs (a server that closes at once does not spin the loop)", () => {
    const t = new WaitTracker(P, 0);
    expect(t.broke(0, 0)).toEqual({ kind: "reconnect", reconnect: 1, delayMs: 100 });
  });

  test("a stream that stayed open for healthyMs resets the backoff", () => {
    const t = new WaitTracker(P, 0);
    t.broke(0, 0.999);
    t.broke(1_000, 0.999);
    t.opened(3_000);
    expect(t.broke(3_000 + 30_000, 0.999)).toEqual({ kind: "reconnect", reconnect: 3, delayMs: 999 });
  });

  test("a stream may live streamMs, or what is left of the bound when that is less", () => {
    const t = new WaitTracker(P, 0);
    expect(t.opened(0)).toBe(20_000);
    expect(t.opened(50_000)).toBe(10_000);
    expect(t.opened(70_000)).toBe(0);
  });

  test("a reconnect whose delay would end after the deadline is a timeout with the time waited", () => {
    const t = new WaitTracker(P, 5_000);
    expect(t.deadlineMs).toBe(65_000);
    expect(t.broke(64_500, 0.999)).toEqual({ kind: "timeout", waitedMs: 59_500 });
    expect(t.expired(64_999)).toBe(false);
    expect(t.expired(65_000)).toBe(true);
  });
});

describe("isWaitRetryable", () => {
  const api = (code: ConnectCode) => connectError("apiserver Wait (stream)", code, "x");
  test("transport failures, cut streams and transient connect codes reconnect", () => {
    expect(isWaitRetryable(new AgentError("unreachable", "x"))).toBe(true);
    expect(isWaitRetryable(new BadAnswerError("stream truncated", false))).toBe(true);
    for (const c of ["unavailable", "deadline_exceeded", "internal", "unknown", "aborted", "canceled", "resource_exhausted"] as const)
      expect([c, isWaitRetryable(api(c))]).toEqual([c, true]);
  });
  test("a refused token, TLS, protocol violations and definite answers end the wait", () => {
    expect(isWaitRetryable(new AgentError("auth", "x"))).toBe(false);
    expect(isWaitRetryable(api("unauthenticated"))).toBe(false);
    expect(isWaitRetryable(new AgentError("tls", "x"))).toBe(false);
    expect(isWaitRetryable(new BadAnswerError("invalid JSON", true))).toBe(false);
    for (const c of ["not_found", "invalid_argument", "failed_precondition", "unimplemented", "permission_denied"] as const)
      expect([c, isWaitRetryable(api(c))]).toEqual([c, false]);
  });
  test("the decision reads the typed facts, never the log details", () => {
    // A bad_answer that does not say it was cut is not reopened; connect words in details decide nothing.
    expect(isWaitRetryable(new AgentError("bad_answer", "x", { violation: false }))).toBe(false);
    expect(isWaitRetryable(new AgentError("api_error", "x", { connectCode: "unavailable" }))).toBe(false);
  });
});
