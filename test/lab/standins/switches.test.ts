/**
 * The stand-in's switch table and ConnectMachine (lab/standins/switches.ts), fed with
 * neighbours as the agent maps them from frames recorded from lldpd configured as
 * SONiC and as Cumulus (test/fixtures/lldp/fabric-*.json).
 */
import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { MachineNicSchema } from "../../../src/gen/metalstack/api/v2/machine_pb.ts";
import { decodeLldpFrame } from "../../../src/network/lldp/lldpdu.ts";
import { toNeighbour } from "../../../src/network/lldp/table.ts";
import { neighbourNic, type NeighbourNic } from "../../../src/agent/neighbours.ts";
import { connectMachine, machineConnections, parseSwitchSpecs, registeredSwitch, type SwitchTable } from "../../../lab/standins/switches.ts";
import { fixture } from "../../network/lldp/fixtures.ts";

const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3133";
const mapped = (name: string, hostname: string): NeighbourNic => {
  const n = neighbourNic(toNeighbour("eno1", decodeLldpFrame(fixture(name).bytes).du));
  if (!n) throw new Error(`${name} maps to nothing`);
  return { ...n, hostname };
};
/** One machine NIC per neighbour, as Register sends them. */
const nics = (...ns: NeighbourNic[]) => ns.map((n, i) => create(MachineNicSchema, { mac: `52:54:00:00:00:0${i}`, name: `eno${i + 1}`, neighbors: [create(MachineNicSchema, n)] }));
const sonic = (
  ports = [
    { name: "Ethernet0", alias: "Eth1/1(Port1)" },
    { name: "Ethernet4", alias: "Eth1/2(Port2)" },
  ],
): SwitchTable => new Map(["leaf01", "leaf02"].map((id) => [id, registeredSwitch(id, "sonic", ports)]));

describe("the stand-in connects a machine as metal-apiserver's ConnectMachine does", () => {
  test("SONiC leaves, neighbours from the SONiC frame: both ports connected, EthernetN by alias", () => {
    const r = connectMachine(sonic(), UUID, nics(mapped("fabric-sonic", "leaf01"), mapped("fabric-sonic", "leaf02")));
    expect(r).toMatchObject({
      ok: true,
      connections: [
        { switch: "leaf01", port: "Ethernet0" },
        { switch: "leaf02", port: "Ethernet0" },
      ],
    });
    if (r.ok)
      expect(machineConnections(r.table, UUID)).toEqual([
        { switch: "leaf01", port: "Ethernet0" },
        { switch: "leaf02", port: "Ethernet0" },
      ]);
  });

  test("a Port ID that is not the alias (the interface name): Register goes through and nothing is connected, as upstream", () => {
    const r = connectMachine(sonic(), UUID, nics(mapped("fabric-sonic-ifname", "leaf01"), mapped("fabric-sonic-ifname", "leaf02")));
    expect(r).toMatchObject({ ok: true, connections: [] });
    if (r.ok) expect(machineConnections(r.table, UUID)).toEqual([]);
  });

  test("Cumulus leaves: with the MAC as Identifier the swp ports connect; as metal-core registers them today (no Identifier) nothing does", () => {
    const mac = fixture("fabric-cumulus").meta.switchMac;
    const specs = ["leaf01", "leaf02"].map((id) => ({ id, os: "cumulus", ports: [{ name: "swp1", mac: mac.toUpperCase() }] }));
    const ns = nics(mapped("fabric-cumulus", "leaf01"), mapped("fabric-cumulus", "leaf02"));
    expect(connectMachine(parseSwitchSpecs(specs), UUID, ns)).toMatchObject({
      ok: true,
      connections: [
        { switch: "leaf01", port: "swp1" },
        { switch: "leaf02", port: "swp1" },
      ],
    });
    expect(connectMachine(parseSwitchSpecs(specs, "none"), UUID, ns)).toMatchObject({ ok: true, connections: [] });
  });

  test("a port on one switch only: failed_precondition with both counts", () => {
    const r = connectMachine(sonic(), UUID, nics(mapped("fabric-sonic", "leaf01"), mapped("fabric-sonic-ifname", "leaf02")));
    expect(r).toEqual({
      ok: false,
      code: "failed_precondition",
      message: `machine connections must be identical on both switches but machine ${UUID} has 1 connections to switch leaf01 and 0 connections to switch leaf02`,
    });
  });

  test("different ports on the two switches: failed_precondition naming both", () => {
    const other = { ...mapped("fabric-sonic", "leaf02"), identifier: "Eth1/2(Port2)" };
    const r = connectMachine(sonic(), UUID, nics(mapped("fabric-sonic", "leaf01"), other));
    expect(r).toEqual({
      ok: false,
      code: "failed_precondition",
      message: `machine ${UUID} is connected to port Ethernet0 on switch leaf01 but not to the corresponding port Ethernet0 of switch leaf02`,
    });
  });

  test("a switch the apiserver does not know, and not exactly two switches", () => {
    expect(connectMachine(sonic(), UUID, nics(mapped("fabric-sonic", "leaf01"), mapped("fabric-sonic", "spine9")))).toMatchObject({ ok: false, code: "not_found" });
    expect(connectMachine(sonic(), UUID, nics(mapped("fabric-sonic", "leaf01")))).toMatchObject({
      ok: false,
      code: "failed_precondition",
      message: `machine ${UUID} is not connected to exactly two switches, found connections to switches [leaf01]`,
    });
  });

  test("connected before, nothing matches now: refused (the connection is in the database but not physical); the table is unchanged", () => {
    const first = connectMachine(sonic(), UUID, nics(mapped("fabric-sonic", "leaf01"), mapped("fabric-sonic", "leaf02")));
    if (!first.ok) throw new Error(first.message);
    const again = connectMachine(first.table, UUID, nics(mapped("fabric-sonic-ifname", "leaf01"), mapped("fabric-sonic-ifname", "leaf02")));
    expect(again).toMatchObject({ ok: false, code: "unknown", message: expect.stringContaining("exists in the database but not physically") });
    expect(machineConnections(first.table, UUID)).toHaveLength(2);
  });

  test("a second machine on the same ports: refused (a port connected to more than one machine)", () => {
    const first = connectMachine(sonic(), UUID, nics(mapped("fabric-sonic", "leaf01"), mapped("fabric-sonic", "leaf02")));
    if (!first.ok) throw new Error(first.message);
    expect(connectMachine(first.table, "4c4c4544-0042-3510-8051-b5c04f4a3134", nics(mapped("fabric-sonic", "leaf01"), mapped("fabric-sonic", "leaf02")))).toMatchObject({
      ok: false,
      code: "unknown",
    });
  });

  test("switch specs: a bad entry is named", () => {
    expect(() => parseSwitchSpecs([{ id: "leaf01", os: "junos", ports: [] }])).toThrow('switches[0].os: expected "sonic" or "cumulus"');
    expect(() => parseSwitchSpecs({})).toThrow("switches: expected a JSON array of {id, os, ports}");
  });
});
