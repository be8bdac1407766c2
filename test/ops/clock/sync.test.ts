import { describe, expect, test } from "bun:test";
import type { NtpServer } from "../../../src/config/ntp-servers.ts";
import { DEFAULT_SNTP_POLICY, sntpBoundMs, type SntpEnv } from "../../../src/ops/clock/sntp-client.ts";
import { syncClock } from "../../../src/ops/clock/sync.ts";
import { standinAnswer, YEAR_MS, type StandinMode } from "../../integration/clock/sntp-standin.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

/** In-process exchange: each server host names a stand-in mode; "down" fails like an unreachable network. */
function env(now: () => number): SntpEnv & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    now,
    random: () => 0.5,
    sleep: async () => {},
    exchange: async (server, request, timeoutMs) => {
      asked.push(server.host);
      if (server.host === "down") return { kind: "failed", message: "ENETUNREACH" };
      const sentMs = now();
      const a = standinAnswer(request(sentMs), server.host as StandinMode, now());
      if (!a) return { kind: "failed", message: `no answer within ${timeoutMs} ms` };
      return { kind: "answer", bytes: a, sentMs, receivedMs: now() };
    },
  };
}

const srv = (host: string): NtpServer => ({ host, port: 123 });
const NOW = Date.parse("2026-12-01T01:00:00Z");

describe("the clock stage (injected setter: the host's clock is never touched)", () => {
  test("a stand-in a year ahead: the clock is stepped by a year, the RTC written, one line says by how much", async () => {
    const set: number[] = [];
    const rtc: number[] = [];
    const cap = capturingLogger();
    const st = await syncClock([srv("year")], { log: cap.log, sntp: env(() => NOW), setClock: (t) => (set.push(t), 0), setRtc: (t) => (rtc.push(t), 0), rtcPresent: () => true });
    expect(st).toMatchObject({ decision: "step", server: "year:123", rtc: "written" });
    expect(set).toHaveLength(1);
    expect(Math.abs(set[0]! - (NOW + YEAR_MS))).toBeLessThan(5);
    expect(rtc).toHaveLength(1);
    const line = cap.events("clock.sync")[0]!;
    expect(line.stepped).toBe(true);
    expect(line.msg).toStartWith("clock moved by 31536000.");
    expect(line.msg).toContain("365 d behind of year:123");
    expect(line.from).toBe("2026-12-01T01:00:00.000Z");
  });

  test("a correct stand-in: the clock is kept, nothing is set", async () => {
    const set: number[] = [];
    const cap = capturingLogger();
    const st = await syncClock([srv("correct")], { log: cap.log, sntp: env(() => NOW), setClock: (t) => (set.push(t), 0), rtcPresent: () => true });
    expect(st.decision).toBe("keep");
    expect(Math.abs(st.offsetMs!)).toBeLessThan(5);
    expect(set).toEqual([]);
    expect(cap.events("clock.sync")[0]!.stepped).toBe(false);
  });

  test("kiss-o'-death: the server is asked once, not again, and the clock stays", async () => {
    const set: number[] = [];
    const cap = capturingLogger();
    const e = env(() => NOW);
    const st = await syncClock([srv("kod")], { log: cap.log, sntp: e, setClock: (t) => (set.push(t), 0) });
    expect(st.decision).toBe("unsynced");
    expect(e.asked).toEqual(["kod"]);
    expect(set).toEqual([]);
    expect(cap.events("clock.reject")[0]).toMatchObject({ reason: "kiss", kiss: "DENY" });
    expect(cap.events("clock.unsynced")[0]!.msg).toContain("the clock stays at 2026-12-01T01:00:00.000Z");
  });

  test("unreachable and silent servers: every attempt fails, the clock stays, each reason is named", async () => {
    const cap = capturingLogger();
    const e = env(() => NOW);
    const st = await syncClock([srv("down"), srv("silent")], { log: cap.log, sntp: e, setClock: () => 0 });
    expect(st.decision).toBe("unsynced");
    expect(e.asked.filter((h) => h === "down")).toHaveLength(3);
    expect(st.reasons).toEqual(["down: ENETUNREACH (3 attempt(s))", "silent: no answer within 1000 ms (3 attempt(s))"]);
  });

  test("one good server among failing ones is enough", async () => {
    const set: number[] = [];
    const st = await syncClock([srv("down"), srv("kod"), srv("year")], {
      log: capturingLogger().log,
      sntp: env(() => NOW),
      setClock: (t) => (set.push(t), 0),
      rtcPresent: () => false,
    });
    expect(st).toMatchObject({ decision: "step", server: "year:123", rtc: "absent" });
    expect(set).toHaveLength(1);
  });

  test("a step that the kernel refuses is reported, not thrown", async () => {
    const cap = capturingLogger();
    const st = await syncClock([srv("year")], { log: cap.log, sntp: env(() => NOW), setClock: () => 1 });
    expect(st).toMatchObject({ decision: "unsynced", problem: "clock_settime failed: EPERM" });
    expect(cap.events("clock.unsynced")[0]!.msg).toContain("cannot be set (clock_settime failed: EPERM)");
  });

  test("no servers: one line says the clock is not checked and names the parameter", async () => {
    const cap = capturingLogger();
    const st = await syncClock([], { log: cap.log, sntp: env(() => NOW), setClock: () => 0 });
    expect(st.decision).toBe("no_servers");
    expect(cap.events("clock.skip")[0]!.msg).toContain("METAL_NTP_SERVERS");
  });
});

describe("an unreachable server's cost (virtual time: every wait advances an injected clock)", () => {
  test("a silent server with the longest jittered pauses costs exactly the documented bound, 4.5 s", async () => {
    let t = NOW;
    const e: SntpEnv = {
      now: () => t,
      // The jitter at its top: each pause is retryDelayMs x 1.5.
      random: () => 1,
      sleep: async (ms) => void (t += ms),
      exchange: async (_server, request, timeoutMs) => {
        request(t);
        t += timeoutMs;
        return { kind: "failed", message: `no answer within ${timeoutMs} ms` };
      },
    };
    const st = await syncClock([srv("silent")], { log: capturingLogger().log, sntp: e, setClock: () => 0 });
    expect(st.reasons).toEqual(["silent: no answer within 1000 ms (3 attempt(s))"]);
    expect(t - NOW).toBe(sntpBoundMs(DEFAULT_SNTP_POLICY));
    expect(sntpBoundMs(DEFAULT_SNTP_POLICY)).toBe(4500);
  });
});
