import { describe, expect, test } from "bun:test";
import { comebacks, firstTimes, largestBurst, spread, timeTo } from "../../../lab/fleet/report.ts";

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
});
