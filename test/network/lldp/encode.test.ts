import { expect, test } from "bun:test";
import { encodeLldpFrame, encodeLldpdu } from "../../../src/network/lldp/encode.ts";
import { decodeLldpFrame } from "../../../src/network/lldp/lldpdu.ts";

const a = { mac: "52:54:00:6D:68:01", ifname: "eth0", systemName: "00000000-6d68-6c00-0000-000000000001", systemDescription: "metal-hammer", ttlSeconds: 10 };

test("our LLDPDU, byte for byte: MAC chassis id, ifname port id, TTL, port description, system name (the UUID), description, End", () => {
  const hex = Buffer.from(encodeLldpdu(a)).toString("hex");
  expect(hex).toBe(
    [
      "0207" + "04" + "5254006d6801", // Chassis ID, subtype 4 (MAC)
      "0405" + "05" + "65746830", // Port ID, subtype 5 (interface name) "eth0"
      "0602" + "000a", // TTL 10 s
      "0804" + "65746830", // Port Description "eth0"
      "0a24" + Buffer.from(a.systemName).toString("hex"), // System Name (36 bytes)
      "0c0c" + Buffer.from("metal-hammer").toString("hex"), // System Description
      "0000", // End
    ].join(""),
  );
});

test("the frame goes to the nearest-bridge group from the NIC's MAC, ethertype 0x88cc, and decodes back to what was sent", () => {
  const f = encodeLldpFrame(a);
  expect(Buffer.from(f.subarray(0, 14)).toString("hex")).toBe("0180c200000e" + "5254006d6801" + "88cc");
  const d = decodeLldpFrame(f);
  expect(d.src).toBe("52:54:00:6d:68:01");
  expect(d.du.chassisId).toMatchObject({ subtype: 4, value: "52:54:00:6d:68:01" });
  expect(d.du.portId).toMatchObject({ subtype: 5, value: "eth0" });
  expect([d.du.ttl, d.du.portDescription, d.du.systemName, d.du.systemDescription, d.du.endTlv]).toEqual([10, "eth0", a.systemName, "metal-hammer", true]);
});

test("a short frame is padded to the Ethernet minimum of 60 bytes", () => {
  const f = encodeLldpFrame({ ...a, systemName: "x", systemDescription: "" });
  expect(f.byteLength).toBe(60);
  expect(decodeLldpFrame(f).du.systemName).toBe("x");
});

test("names longer than 255 bytes are cut to fit the TLV", () => {
  const d = decodeLldpFrame(encodeLldpFrame({ ...a, systemDescription: "d".repeat(400) })).du;
  expect(d.systemDescription).toHaveLength(255);
});
