import { describe, expect, test } from "bun:test";
import { icmpv6Checksum, routerSolicitationPacket } from "../../../src/network/net/rs-frame.ts";

describe("router solicitation from ::", () => {
  test("is the exact IPv6 packet: hop limit 255, :: -> ff02::2, ICMPv6 133 with its checksum", () => {
    expect(Buffer.from(routerSolicitationPacket()).toString("hex")).toBe(
      "60000000" + "0008" + "3a" + "ff" + "00".repeat(16) + "ff020000000000000000000000000002" + "8500" + "7bb8" + "00000000",
    );
  });
  test("the checksum verifies to zero over the pseudo-header", () => {
    const pkt = routerSolicitationPacket();
    expect(icmpv6Checksum(pkt.subarray(8, 24), pkt.subarray(24, 40), pkt.subarray(40))).toBe(0);
  });
});
