import { describe, expect, test } from "bun:test";
import { decideClock, describeOffset, STEP_THRESHOLD_MS, type ServerOutcome } from "../../../src/ops/clock/decide.ts";
import type { NtpServer } from "../../../src/config/ntp-servers.ts";

const s = (n: number): NtpServer => ({ host: `fd00::${n}`, port: 123 });
const sample = (n: number, offsetMs: number, delayMs = 10): ServerOutcome => ({
  server: s(n),
  kind: "sample",
  sample: { kind: "sample", offsetMs, delayMs, stratum: 2, serverTimeMs: 0 },
});

describe("the clock decision", () => {
  test("no servers configured: no_servers", () => {
    expect(decideClock([], [])).toEqual({ kind: "no_servers" });
  });

  test("off by a year: step by the offset", () => {
    const d = decideClock([s(1)], [sample(1, 365 * 86_400_000)]);
    expect(d).toMatchObject({ kind: "step", offsetMs: 365 * 86_400_000 });
  });

  test("off by less than the threshold (1 s): keep", () => {
    expect(STEP_THRESHOLD_MS).toBe(1000);
    expect(decideClock([s(1)], [sample(1, 999)]).kind).toBe("keep");
    expect(decideClock([s(1)], [sample(1, -1000)]).kind).toBe("step");
  });

  test("one wrong server of three is outvoted (median)", () => {
    const d = decideClock([s(1), s(2), s(3)], [sample(1, 50), sample(2, 365 * 86_400_000), sample(3, 60)]);
    expect(d).toMatchObject({ kind: "keep", offsetMs: 60, server: s(3) });
  });

  test("of two disagreeing servers the one with the shorter round trip wins", () => {
    const d = decideClock([s(1), s(2)], [sample(1, 5000, 200), sample(2, 100, 5)]);
    expect(d).toMatchObject({ kind: "keep", offsetMs: 100, server: s(2) });
  });

  test("no usable answer: unsynced, with each server's reason", () => {
    const d = decideClock(
      [s(1), s(2)],
      [
        { server: s(1), kind: "rejected", rejection: { kind: "rejected", reason: "kiss", message: 'kiss-o\'-death "DENY"' } },
        { server: s(2), kind: "no_answer", message: "no answer within 1000 ms (3 attempt(s))" },
      ],
    );
    expect(d).toEqual({ kind: "unsynced", reasons: ['fd00::1: kiss-o\'-death "DENY"', "fd00::2: no answer within 1000 ms (3 attempt(s))"] });
  });

  test("the offset in words", () => {
    expect(describeOffset(365 * 86_400_000 + 3_600_000)).toBe("365 d 1 h behind");
    expect(describeOffset(-1500)).toBe("1.5 s ahead");
    expect(describeOffset(42)).toBe("42 ms behind");
    expect(describeOffset(192_400)).toBe("3 min 12.4 s behind");
  });
});

test("whole units are not followed by zero seconds", () => {
  expect(describeOffset(365 * 86_400_000)).toBe("365 d behind");
});
