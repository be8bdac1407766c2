import { describe, expect, test } from "bun:test";
import {
  answersPerMachine,
  canonicalAddress,
  comebacks,
  firstTimes,
  getsPerMachine,
  largestBurst,
  retriesAfter,
  spread,
  timeTo,
  unavailableRetries,
} from "../../../lab/fleet/report.ts";

describe("fleet report", () => {
  test("spread takes nearest-rank percentiles", () => {
    expect(spread([5, 1, 4, 2, 3])).toEqual({ n: 5, p50: 3, p95: 5, max: 5 });
    expect(spread(Array.from({ length: 100 }, (_, i) => i + 1))).toEqual({ n: 100, p50: 50, p95: 95, max: 100 });
    expect(spread([]).n).toBe(0);
  });

  test("timeTo counts only the machines that logged the event, from their own power-on", () => {
    const traces = [
      { startedAt: 1000, firsts: { "net.ready": 2500, "provision.wait": 4000 } },
      { startedAt: 1100, firsts: { "net.ready": 2100 } },
    ];
    expect(timeTo(traces, "net.ready")).toEqual({ n: 2, p50: 1000, p95: 1500, max: 1500 });
    expect(timeTo(traces, "provision.wait")).toEqual({ n: 1, p50: 3000, p95: 3000, max: 3000 });
  });

  test("largestBurst finds the fullest 100 ms bucket, optionally only after a time", () => {
    const t = [0, 10, 20, 150, 160, 170, 180, 900];
    expect(largestBurst(t)).toEqual({ requests: 4, atMs: 100 });
    expect(largestBurst(t, 800)).toEqual({ requests: 1, atMs: 900 });
    expect(largestBurst([], 0)).toEqual({ requests: 0, atMs: NaN });
  });

  test("firstTimes keeps each event's first line and skips lines without time", () => {
    expect(firstTimes([{ event: "a", time: "2026-01-01T00:00:01.000Z" }, { event: "a", time: "2026-01-01T00:00:02.000Z" }, { event: "b" }, { event: "c", time: "nope" }])).toEqual({
      a: Date.parse("2026-01-01T00:00:01.000Z"),
    });
  });

  test("comebacks: each source's first answered request after the servers came back, and the Waits opened then", () => {
    const log = [
      { time: 50, source: "a", path: "/config/1" },
      { time: 120, source: "a", path: "/config/1" },
      { time: 130, source: "a", path: "/metalstack.api.v2.VersionService/Get" },
      { time: 140, source: "b", path: "/config/2" },
      { time: 150, source: null, path: "/config/3" },
      { time: 160, source: "c", path: "/metalstack.infra.v2.BootService/Wait" },
    ];
    expect(comebacks(log, [90, 110, 300], 100).sort((x, y) => x - y)).toEqual([110, 120, 140, 300]);
  });

  test("canonicalAddress writes an address one way, so the servers' and ip's spellings compare", () => {
    expect(canonicalAddress("2001:DB8:F1:0:0:0:0:a8")).toBe("2001:db8:f1::a8");
    expect(canonicalAddress("2001:db8:f1:0:f1ff:fe00:1:1")).toBe("2001:db8:f1:0:f1ff:fe00:1:1");
    expect(canonicalAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(canonicalAddress("10.0.0.1")).toBe("10.0.0.1");
  });

  test("answersPerMachine counts one status of one server per machine, by the machine's addresses", () => {
    const log = [
      { source: "2001:db8:f1::a", status: 503, server: "api" },
      { source: "2001:db8:f1:0:0:0:0:a", status: 503, server: "api" },
      { source: "2001:db8:f1::b", status: 503, server: "api" },
      { source: "2001:db8:f1::b", status: 200, server: "api" },
      { source: "2001:db8:f1::b", status: 503, server: "boot" },
      { source: "2001:db8:f1::1", status: 503, server: "api" },
      { source: null, status: 503, server: "api" },
    ];
    expect(answersPerMachine(log, [["2001:db8:f1::a"], ["fd00::b", "2001:db8:f1::b"], []], 503)).toEqual([2, 1, 0]);
  });

  test("getsPerMachine lists each machine's GETs of the image in time order; other paths, servers, methods and sources left out", () => {
    const img = "/debian/12/img.tar.lz4";
    const log = [
      { time: 30, source: "2001:db8:f1::a", server: "images", method: "GET", path: img },
      { time: 10, source: "2001:db8:f1:0:0:0:0:a", server: "images", method: "GET", path: img },
      { time: 20, source: "2001:db8:f1::b", server: "images", path: img },
      { time: 15, source: "2001:db8:f1::b", server: "images", method: "HEAD", path: img },
      { time: 12, source: "2001:db8:f1::b", server: "images", method: "GET", path: `${img}.sha256` },
      { time: 11, source: "2001:db8:f1::b", server: "boot", method: "GET", path: img },
      { time: 5, source: "2001:db8:f1::1", server: "images", method: "GET", path: img },
      { time: 6, source: null, server: "images", method: "GET", path: img },
      { time: 25, source: "2001:db8:f1::a", server: "images", method: "GET", path: img },
    ];
    expect(getsPerMachine(log, [["2001:db8:f1::a"], ["fd00::b", "2001:db8:f1::b"], []], img)).toEqual([[10, 25, 30], [20], []]);
  });

  test("unavailableRetries counts the retries that name an apiserver 503, unary and Wait", () => {
    const lines = [
      { event: "http.retry", what: "apiserver metalstack.infra.v2.BootService/Register", reason: "status 503" },
      { event: "http.retry", what: "metal-boot config", reason: "status 503" },
      { event: "http.retry", what: "apiserver metalstack.api.v2.VersionService/Get", reason: "ECONNREFUSED" },
      { event: "provision.wait.reconnect", reason: "apiserver metalstack.infra.v2.BootService/Wait (stream): unavailable: HTTP 503" },
      { event: "provision.wait.reconnect", reason: "apiserver metalstack.infra.v2.BootService/Wait (stream): unavailable: stand-in fault" },
      { event: "provision.register", reason: "status 503" },
    ];
    expect(unavailableRetries(lines)).toBe(2);
  });

  test("retriesAfter pairs each 503 with the same source's next request to the same path", () => {
    const log = [
      { time: 100, source: "a", path: "/Register", status: 503 },
      { time: 110, source: "b", path: "/Register", status: 200 },
      { time: 120, source: "a", path: "/Get", status: 200 },
      { time: 130, source: "b", path: "/Wait", status: 503 },
      { time: 300, source: "a", path: "/Register", status: 503 },
      { time: 340, source: "a", path: "/Register", status: 200 },
      { time: 350, source: "c", path: "/Get", status: 503 },
      { time: 360, source: null, path: "/Get", status: 503 },
    ];
    expect(retriesAfter(log)).toEqual([
      { at: 300, delayMs: 200 },
      { at: 340, delayMs: 40 },
    ]);
  });
});
