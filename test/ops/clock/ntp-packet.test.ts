import { describe, expect, test } from "bun:test";
import { decodePacket, encodePacket, encodeRequest, kissCode, NtpDecodeError, ntpToUnixMs, unixMsToNtp } from "../../../src/ops/clock/ntp-packet.ts";

describe("NTP timestamps", () => {
  test("1970-01-01 is 2208988800 s after the NTP epoch", () => {
    expect(unixMsToNtp(0)).toBe(2_208_988_800n << 32n);
  });

  test("a machine in 2001 and one in 2038 decode the same server time (era rule of RFC 4330 section 3)", () => {
    for (const iso of ["2001-01-01T00:00:00.000Z", "2026-12-01T01:02:03.250Z", "2036-02-07T06:28:15.000Z", "2036-02-07T06:28:17.000Z", "2038-01-19T03:14:08.500Z"]) {
      const ms = Date.parse(iso);
      expect(Math.abs(ntpToUnixMs(unixMsToNtp(ms)) - ms)).toBeLessThan(0.001);
    }
  });

  test("after the 2036 era rollover the seconds field starts again from 0", () => {
    const justAfter = Date.parse("2036-02-07T06:28:16.000Z");
    expect(unixMsToNtp(justAfter) >> 32n).toBe(0n);
  });
});

describe("the client request", () => {
  test("is 48 bytes: LI 0, version 4, mode 3, only the transmit timestamp set", () => {
    const ts = 0xe9c6f1a2_80000000n;
    const b = encodeRequest(ts);
    expect(b.length).toBe(48);
    expect(b[0]).toBe(0x23);
    expect([...b.subarray(1, 40)].every((x) => x === 0)).toBe(true);
    expect(Buffer.from(b.subarray(40)).toString("hex")).toBe("e9c6f1a280000000");
  });
});

describe("decoding a server answer", () => {
  // A stratum-2 answer as a server sends it (golden bytes, written out field by field).
  const golden = Buffer.from(
    "24" +
      "02" +
      "03" +
      "e9" + // LI 0, VN 4, mode 4; stratum 2; poll 3; precision -23
      "00000123" +
      "00000456" + // root delay, root dispersion (16.16)
      "c0a80001" + // reference id
      "e9c6f100" +
      "00000000" + // reference
      "e9c6f1a2" +
      "80000000" + // origin
      "e9c6f1a3" +
      "00000000" + // receive
      "e9c6f1a3" +
      "40000000", // transmit
    "hex",
  );

  test("reads every field of the 48 bytes", () => {
    const p = decodePacket(new Uint8Array(golden));
    expect(p).toMatchObject({ leap: 0, version: 4, mode: 4, stratum: 2, poll: 3, precision: -23 });
    expect(p.origin).toBe(0xe9c6f1a2_80000000n);
    expect(p.receive).toBe(0xe9c6f1a3_00000000n);
    expect(p.transmit).toBe(0xe9c6f1a3_40000000n);
    expect(p.rootDelayMs).toBeCloseTo((0x123 / 65536) * 1000, 6);
    expect(Buffer.from(encodePacket(p)).equals(golden)).toBe(true);
  });

  test("a datagram shorter than 48 bytes is refused, naming its length", () => {
    expect(() => decodePacket(new Uint8Array(golden.subarray(0, 47)))).toThrow(new NtpDecodeError("NTP answer of 47 bytes, expected at least 48"));
  });

  test("the kiss code of a stratum-0 answer is its reference id in ASCII", () => {
    const b = new Uint8Array(golden);
    b[1] = 0;
    b.set(new TextEncoder().encode("RATE"), 12);
    expect(kissCode(decodePacket(b))).toBe("RATE");
  });
});
