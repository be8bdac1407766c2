import { describe, expect, test } from "bun:test";
import { unixMsToNtp, type NtpPacket } from "../../../src/ops/clock/ntp-packet.ts";
import { checkAnswer, type CheckInput } from "../../../src/ops/clock/sntp-check.ts";

const T1 = Date.parse("2026-12-01T01:00:00.000Z");
const REQ = unixMsToNtp(T1) ^ 0x5a5an;

/** A server answer for a client that is `offsetMs` behind, with a `rttMs` round trip and 1 ms server processing. */
function answer(offsetMs: number, rttMs: number, over: Partial<NtpPacket> = {}): CheckInput {
  const t2 = T1 + rttMs / 2 + offsetMs;
  const t3 = t2 + 1;
  const packet: NtpPacket = {
    leap: 0,
    version: 4,
    mode: 4,
    stratum: 2,
    poll: 0,
    precision: -20,
    rootDelayMs: 10,
    rootDispersionMs: 10,
    refId: new Uint8Array([1, 2, 3, 4]),
    reference: unixMsToNtp(t2 - 1000),
    origin: REQ,
    receive: unixMsToNtp(t2),
    transmit: unixMsToNtp(t3),
    ...over,
  };
  return { packet, requestTransmit: REQ, sentMs: T1, receivedMs: T1 + rttMs + 1, maxRoundTripMs: 1000 };
}

describe("checking one SNTP answer", () => {
  test("a good answer gives the offset and the round trip without the server's processing time", () => {
    const v = checkAnswer(answer(365 * 86_400_000, 20));
    expect(v.kind).toBe("sample");
    if (v.kind !== "sample") return;
    expect(v.offsetMs).toBeCloseTo(365 * 86_400_000, 0);
    expect(v.delayMs).toBeCloseTo(20, 0);
    expect(v.stratum).toBe(2);
  });

  test("a clock ahead gives a negative offset", () => {
    const v = checkAnswer(answer(-5000, 4));
    expect(v.kind === "sample" && Math.round(v.offsetMs)).toBe(-5000);
  });

  const cases: [string, Partial<NtpPacket>, string, string][] = [
    ["mode other than server", { mode: 5 }, "mode", "answer mode 5, expected 4 (server)"],
    ["version 0", { version: 0 }, "version", "answer version 0, expected 1..4"],
    ["stratum 16 (unsynchronized)", { stratum: 16 }, "stratum", "stratum 16, expected 1..15 (16 means unsynchronized)"],
    ["leap indicator 3 (alarm)", { leap: 3 }, "leap", "leap indicator 3 (alarm: the server's clock is not synchronized)"],
    ["an origin that is not our request", { origin: REQ + 1n }, "origin", "originate timestamp does not match the request (stale, spoofed or misdirected answer)"],
    ["a zero transmit timestamp", { transmit: 0n }, "transmit", "transmit timestamp is zero"],
    ["a server far from its reference", { rootDispersionMs: 2000 }, "root_distance", "server's root distance 2005 ms, expected at most 1500 ms"],
  ];
  for (const [what, over, reason, message] of cases) {
    test(`refused: ${what}`, () => {
      expect(checkAnswer(answer(0, 10, over))).toEqual({ kind: "rejected", reason: reason as never, message });
    });
  }

  test("refused: a round trip above the bound", () => {
    const v = checkAnswer(answer(0, 1500));
    expect(v).toMatchObject({ kind: "rejected", reason: "round_trip", message: "round trip 1500 ms, expected 0..1000 ms" });
  });

  test("kiss-o'-death DENY means stop asking this server; RATE means slow down", () => {
    const deny = checkAnswer(answer(0, 10, { stratum: 0, refId: new TextEncoder().encode("DENY") }));
    expect(deny).toMatchObject({ kind: "rejected", reason: "kiss", kiss: { code: "DENY", action: "stop" } });
    const rate = checkAnswer(answer(0, 10, { stratum: 0, refId: new TextEncoder().encode("RATE") }));
    expect(rate).toMatchObject({ kind: "rejected", reason: "kiss", kiss: { code: "RATE", action: "slow_down" } });
  });
});
