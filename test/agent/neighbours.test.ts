/**
 * The LLDP neighbour -> v2 MachineNic mapping, from frames recorded from real lldpd
 * configured as SONiC's lldpmgrd and as Cumulus (test/fixtures/lldp/fabric-*.json,
 * record-fabric.ts), decoded by the agent's own decoder.
 */
import { describe, expect, test } from "bun:test";
import { decodeLldpFrame, TLV_PORT_DESCRIPTION } from "../../src/network/lldp/lldpdu.ts";
import { isMac } from "../../src/platform/ids/mac.ts";
import type { LldpNeighbour } from "../../src/network/lldp/neighbour.ts";
import { toNeighbour } from "../../src/network/lldp/table.ts";
import { mapNeighbour, neighbourNic, neighbourNics } from "../../src/agent/neighbours.ts";
import { fixture } from "../network/lldp/fixtures.ts";

const heard = (bytes: Uint8Array, ifname = "eno1"): LldpNeighbour => toNeighbour(ifname, decodeLldpFrame(bytes).du);
const recorded = (name: string, ifname = "eno1") => heard(fixture(name).bytes, ifname);

/** The frame without its TLVs of `type` (Ethernet header of 14 bytes, then TLVs up to End). */
function withoutTlv(frame: Uint8Array, type: number): Uint8Array {
  const out = [...frame.subarray(0, 14)];
  for (let at = 14; at + 2 <= frame.byteLength; ) {
    const len = (((frame[at] ?? 0) & 1) << 8) | (frame[at + 1] ?? 0);
    const t = (frame[at] ?? 0) >> 1;
    if (t !== type) out.push(...frame.subarray(at, at + 2 + len));
    if (t === 0) break;
    at += 2 + len;
  }
  return Uint8Array.from(out);
}

describe("an LLDP neighbour as the v2 apiserver reads it", () => {
  test("SONiC (lldpmgrd: Port ID = alias, locally assigned): identifier = the alias, name = Ethernet0, mac = the chassis MAC, hostname = System Name", () => {
    const n = recorded("fabric-sonic");
    expect([n.portIdSubtype, n.portId, n.chassisIdSubtype]).toEqual([7, "Eth1/1(Port1)", 4]);
    expect(mapNeighbour(n)).toEqual({ ok: true, nic: { mac: "02:11:22:33:44:01", identifier: "Eth1/1(Port1)", name: "Ethernet0", hostname: "leaf01" }, macFrom: "chassis id" });
    // The v1 mapping (mac = Port ID) is what the apiserver refuses.
    expect(isMac(n.portId)).toBe(false);
  });

  test("Cumulus (lldpd defaults: Port ID = the swp's MAC): mac and identifier = that MAC, name = swp1", () => {
    const n = recorded("fabric-cumulus");
    expect(neighbourNic(n)).toEqual({ mac: "02:11:22:33:44:01", identifier: "02:11:22:33:44:01", name: "swp1", hostname: "leaf02" });
    expect(mapNeighbour(n)).toMatchObject({ macFrom: "port id" });
  });

  test("a Port ID neither a MAC nor the alias (SONiC before lldpmgrd: the interface name): sent as the identifier as it came, mac from the chassis", () => {
    const n = recorded("fabric-sonic-ifname");
    expect(n.portIdSubtype).toBe(5);
    expect(neighbourNic(n)).toEqual({ mac: "02:11:22:33:44:01", identifier: "Ethernet0", name: "Ethernet0", hostname: "leaf01" });
  });

  test("a missing Port Description: the name is the Port ID string", () => {
    const n = heard(withoutTlv(fixture("fabric-sonic").bytes, TLV_PORT_DESCRIPTION));
    expect(n.portDescription).toBe("");
    expect(neighbourNic(n)).toEqual({ mac: "02:11:22:33:44:01", identifier: "Eth1/1(Port1)", name: "Eth1/1(Port1)", hostname: "leaf01" });
  });

  test("a chassis id that is not a MAC and a Port ID that is not one either: left out, the reason names both", () => {
    const n = recorded("fabric-sonic-chassis-local");
    expect([n.chassisIdSubtype, n.chassisId]).toEqual([7, "leaf01-chassis"]);
    expect(mapNeighbour(n)).toEqual({
      ok: false,
      reason: "neither its port id (subtype 7) nor its chassis id (subtype 7) is a MAC address, and the apiserver requires a MAC for a neighbour's mac",
    });
    expect(neighbourNic(n)).toBeUndefined();
  });

  test("a chassis id that is not a MAC with a MAC Port ID: the Port ID's MAC", () => {
    const n = { ...recorded("fabric-cumulus"), chassisId: "leaf02", chassisIdSubtype: 7 };
    expect(neighbourNic(n)).toEqual({ mac: "02:11:22:33:44:01", identifier: "02:11:22:33:44:01", name: "swp1", hostname: "leaf02" });
  });

  test("names and identifiers the apiserver would refuse: left out with the rule", () => {
    const base = recorded("fabric-sonic");
    expect(mapNeighbour({ ...base, portId: "E".repeat(129) })).toEqual({ ok: false, reason: "its port id is 129 characters, the apiserver takes an identifier of at most 128" });
    expect(mapNeighbour({ ...base, portId: "E".repeat(128), portDescription: "" })).toMatchObject({ ok: true, nic: { identifier: "E".repeat(128), name: "E".repeat(128) } });
    expect(mapNeighbour({ ...base, portId: "1", portDescription: "x" })).toEqual({
      ok: false,
      reason: "neither its port description nor its port id is 2..128 characters, as the apiserver requires for a neighbour's name",
    });
    // A one-character description falls back to the port id.
    expect(neighbourNic({ ...base, portDescription: "x" })?.name).toBe("Eth1/1(Port1)");
  });

  test("per interface: mapped neighbours by NIC, the left-out ones with NIC, switch and port", () => {
    const r = neighbourNics(
      new Map([
        ["eno1", [recorded("fabric-sonic", "eno1")]],
        ["eno2", [recorded("fabric-sonic-chassis-local", "eno2"), recorded("fabric-cumulus", "eno2")]],
      ]),
    );
    expect(Object.fromEntries([...r.nics].map(([k, v]) => [k, v.map((x) => x.identifier)]))).toEqual({ eno1: ["Eth1/1(Port1)"], eno2: ["02:11:22:33:44:01"] });
    expect(r.omitted).toEqual([{ interface: "eno2", systemName: "leaf01", portId: "Eth1/1(Port1)", reason: expect.stringContaining("neither its port id") }]);
  });
});
