import { describe, expect, test } from "bun:test";
import { decodeLldpFrame, decodeLldpdu, LldpDecodeError, type LldpDecodeReason } from "../../../src/network/lldp/lldpdu.ts";
import { CHASSIS, END, ETH, fixture, frame, PORT, tlv, TTL } from "./fixtures.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function rejects(bytes: Uint8Array, reason: LldpDecodeReason, offset: number, message: RegExp): void {
  let err: unknown;
  try {
    decodeLldpFrame(bytes);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(LldpDecodeError);
  const e = err as LldpDecodeError;
  expect({ reason: e.reason, offset: e.offset }).toEqual({ reason, offset });
  expect(e.message).toMatch(message);
}

describe("frames recorded from Debian's lldpd", () => {
  test("default lldpd frame: MAC chassis and port id, TTL, names, IPv4 and IPv6 management addresses, 802.3 TLVs kept", () => {
    const { bytes, meta } = fixture("lldpd-mac-port-id");
    const f = decodeLldpFrame(bytes);
    expect(f.dst).toBe("01:80:c2:00:00:0e");
    expect(f.src).toBe(meta.switchMac);
    expect(f.vlan).toBeUndefined();
    const du = f.du;
    expect(du.chassisId).toEqual({ subtype: 4, value: "02:11:22:33:44:01", raw: Uint8Array.from([2, 0x11, 0x22, 0x33, 0x44, 1]) });
    expect(du.portId.subtype).toBe(3);
    expect(du.portId.value).toBe("02:11:22:33:44:01");
    expect(du.ttl).toBe(4); // tx-interval 1 s x tx-hold 4
    expect(du.systemName).toBe("leaf01");
    expect(du.portDescription).toMatch(/^mhlc[0-9a-f]{4}s$/); // the switch-side veth's name
    expect(du.systemDescription).toStartWith("Debian GNU/Linux 12 (bookworm) Linux ");
    expect(du.capabilities).toEqual({ system: 0x009c, enabled: 0x0080 });
    expect(du.managementAddresses.map((m) => [m.family, m.address, m.ifSubtype, m.ifNumber, m.oid.byteLength])).toEqual([
      [1, "192.0.2.11", 2, 2, 0],
      [2, "fe80::11:22ff:fe33:4401", 2, 2, 0],
    ]);
    expect(du.orgSpecific.map((o) => [o.oui, o.subtype, hex(o.info)])).toEqual([
      ["00:12:0f", 3, "0100000000"],
      ["00:12:0f", 1, "0080000036"],
    ]);
    expect(du.unknown).toEqual([]);
    expect(du.endTlv).toBe(true);
  });

  test("port id subtype 5 (interface name) and a configured port description", () => {
    const du = decodeLldpFrame(fixture("lldpd-ifname-port-id").bytes).du;
    expect(du.portId.subtype).toBe(5);
    expect(du.portId.value).toMatch(/^mhlc[0-9a-f]{4}s$/);
    expect(new TextDecoder().decode(du.portId.raw)).toBe(du.portId.value);
    expect(du.portDescription).toBe("Ethernet0");
    expect(du.systemName).toBe("leaf02");
  });

  test("port id subtype 7 (locally assigned)", () => {
    const du = decodeLldpFrame(fixture("lldpd-local-port-id").bytes).du;
    expect([du.portId.subtype, du.portId.value, du.systemName]).toEqual([7, "Ethernet12", "leaf03"]);
  });

  test("the shutdown LLDPDU lldpd sends when it stops has TTL 0 and only the mandatory TLVs", () => {
    const { bytes } = fixture("lldpd-shutdown");
    expect(bytes.byteLength).toBe(38);
    const du = decodeLldpFrame(bytes).du;
    expect(du.ttl).toBe(0);
    expect(du.chassisId.value).toBe("02:11:22:33:44:01");
    expect(du.systemName).toBeUndefined();
    expect(du.endTlv).toBe(true);
  });

  test("every recorded frame ends exactly at its End TLV: decoding consumes the frame byte for byte", () => {
    for (const name of ["lldpd-mac-port-id", "lldpd-ifname-port-id", "lldpd-local-port-id", "lldpd-shutdown"]) {
      const { bytes } = fixture(name);
      expect(hex(bytes.subarray(-2))).toBe("0000");
      // Cutting the End TLV off leaves a PDU that is still accepted, without End.
      expect(decodeLldpFrame(bytes.subarray(0, -2)).du.endTlv).toBe(false);
      // Cutting one more byte makes a TLV overrun the frame.
      expect(() => decodeLldpFrame(bytes.subarray(0, -3))).toThrow(LldpDecodeError);
    }
  });
});

describe("well-formed frames beyond the recordings", () => {
  test("padding after the End TLV is ignored", () => {
    const f = frame(CHASSIS, PORT, TTL, END, [0, 0, 0, 0, 0xff, 0xff]);
    expect(decodeLldpFrame(f).du.ttl).toBe(120);
  });

  test("a VLAN-tagged frame is decoded with its VLAN id", () => {
    const tagged = Uint8Array.from([...ETH.slice(0, 12), 0x81, 0x00, 0x20, 0x64, 0x88, 0xcc, ...CHASSIS, ...PORT, ...TTL, ...END]);
    const f = decodeLldpFrame(tagged);
    expect(f.vlan).toBe(100);
    expect(f.du.ttl).toBe(120);
  });

  test("reserved TLV types are kept as raw bytes", () => {
    const du = decodeLldpFrame(frame(CHASSIS, PORT, TTL, tlv(9, [1, 2, 3]), tlv(126, []), END)).du;
    expect(du.unknown.map((u) => [u.type, hex(u.value)])).toEqual([
      [9, "010203"],
      [126, ""],
    ]);
  });

  test("network-address and reserved id subtypes are shown as addresses and hex", () => {
    const du = decodeLldpFrame(frame(tlv(1, [5, 1, 10, 0, 0, 1]), tlv(2, [0x42, 0xde, 0xad]), TTL, END)).du;
    expect(du.chassisId.value).toBe("10.0.0.1");
    expect(du.portId.value).toBe("dead");
  });

  test("control characters, bidi overrides and invalid UTF-8 from the wire are escaped", () => {
    const du = decodeLldpFrame(frame(CHASSIS, PORT, TTL, tlv(5, "leaf\u001b[31m01\n"), tlv(4, [0x73, 0x77, 0x70, 0xff, 0x31]), tlv(6, "a\u202eb\\c"), END)).du;
    expect(du.systemName).toBe("leaf\\x1b[31m01\\x0a");
    expect(du.portDescription).toBe("swp\\xff1");
    expect(du.systemDescription).toBe("a\\u{202e}b\\\\c");
  });
});

describe("malformed frames are typed errors naming what was wrong", () => {
  test("shorter than an Ethernet header", () => rejects(Uint8Array.from([1, 2, 3]), "truncated_ethernet", 0, /3 bytes, expected at least 14/));
  test("not ethertype 0x88cc", () => rejects(Uint8Array.from([...ETH.slice(0, 12), 0x86, 0xdd, ...CHASSIS]), "not_lldp", 12, /0x86dd, expected 0x88cc/));
  test("a tagged frame cut inside the VLAN tag", () => rejects(Uint8Array.from([...ETH.slice(0, 12), 0x81, 0x00, 0x20]), "truncated_ethernet", 12, /VLAN-tagged/));
  test("no TLV at all", () => rejects(frame(), "missing_chassis_id", 14, /does not start with a Chassis ID TLV \(found nothing\)/));
  test("a TLV whose length runs past the frame", () =>
    rejects(frame(CHASSIS, PORT, TTL, tlv(5, "leaf01", 200)), "truncated_tlv", 14 + 9 + 9 + 4, /System Name TLV at offset 36 claims 200 bytes, 6 left/));
  test("one dangling byte after a TLV", () => rejects(frame(CHASSIS, PORT, TTL, [0x0a]), "truncated_tlv", 36, /needs 2 bytes, 1 left/));
  test("the first TLV is not the Chassis ID", () => rejects(frame(PORT, CHASSIS, TTL, END), "missing_chassis_id", 14, /found Port ID at offset 14/));
  test("the Port ID is missing", () => rejects(frame(CHASSIS, TTL, END), "missing_port_id", 23, /second TLV is not a Port ID \(found Time To Live/));
  test("the TTL is missing", () => rejects(frame(CHASSIS, PORT, END), "missing_ttl", 32, /third TLV is not a Time To Live \(found nothing\)/));
  test("a TTL of 3 bytes", () => rejects(frame(CHASSIS, PORT, tlv(3, [0, 0, 120]), END), "bad_length", 32, /Time To Live TLV at offset 32 has length 3, expected 2/));
  test("a chassis id without an id", () => rejects(frame(tlv(1, [4]), PORT, TTL, END), "bad_length", 14, /Chassis ID TLV at offset 14 has length 1, expected 2..256/));
  test("a MAC chassis id of 5 bytes", () => rejects(frame(tlv(1, [4, 1, 2, 3, 4, 5]), PORT, TTL, END), "bad_value", 14, /subtype 4 \(MAC address\) has 5 bytes, expected 6/));
  test("a MAC port id of 7 bytes", () =>
    rejects(frame(CHASSIS, tlv(2, [3, 1, 2, 3, 4, 5, 6, 7]), TTL, END), "bad_value", 23, /Port ID TLV at offset 23: subtype 3 \(MAC address\) has 7 bytes/));
  test("an IPv4 network-address chassis id of 3 bytes", () => rejects(frame(tlv(1, [5, 1, 10, 0, 0]), PORT, TTL, END), "bad_value", 14, /address family 1 needs 4 bytes, has 3/));
  test("a second System Name", () => rejects(frame(CHASSIS, PORT, TTL, tlv(5, "a"), tlv(5, "b"), END), "duplicate_tlv", 39, /second System Name TLV at offset 39/));
  test("a second Chassis ID after the TTL", () => rejects(frame(CHASSIS, PORT, TTL, CHASSIS, END), "duplicate_tlv", 36, /second Chassis ID/));
  test("an End TLV with a length", () => rejects(frame(CHASSIS, PORT, TTL, tlv(0, [1])), "bad_length", 36, /End Of LLDPDU TLV at offset 36 has length 1, expected 0/));
  test("System Capabilities of 3 bytes", () =>
    rejects(frame(CHASSIS, PORT, TTL, tlv(7, [0, 4, 0]), END), "bad_length", 36, /System Capabilities TLV at offset 36 has length 3, expected 4/));
  test("an organizationally specific TLV without its subtype", () => rejects(frame(CHASSIS, PORT, TTL, tlv(127, [0, 0x12, 0x0f]), END), "bad_length", 36, /expected at least 4/));
  test("a management address whose address string is too long", () =>
    rejects(frame(CHASSIS, PORT, TTL, tlv(8, [40, 1, 10, 0, 0, 1, 2, 0, 0, 0, 1, 0]), END), "bad_value", 36, /address string length 40, expected 2..32/));
  test("a management address whose OID length does not fill the TLV", () =>
    rejects(frame(CHASSIS, PORT, TTL, tlv(8, [5, 1, 10, 0, 0, 1, 2, 0, 0, 0, 1, 3, 1]), END), "bad_length", 36, /OID length 3 does not fill the remaining 1 bytes/));
  test("a management address of 8 bytes", () => rejects(frame(CHASSIS, PORT, TTL, tlv(8, [5, 1, 10, 0, 0, 1, 2, 0]), END), "bad_length", 36, /length 8, expected 9..167/));

  test("every truncation of a recorded frame is either accepted at a TLV boundary or rejected with a typed error, never anything else", () => {
    const { bytes } = fixture("lldpd-mac-port-id");
    for (let n = 0; n < bytes.byteLength; n++) {
      try {
        decodeLldpFrame(bytes.subarray(0, n));
      } catch (e) {
        expect(e).toBeInstanceOf(LldpDecodeError);
      }
    }
  });

  test("offsets are relative to the LLDPDU when it is decoded on its own", () => {
    expect(() => decodeLldpdu(Uint8Array.from([...CHASSIS, ...PORT, ...tlv(3, [1])]))).toThrow(/Time To Live TLV at offset 18 has length 1/);
  });
});
