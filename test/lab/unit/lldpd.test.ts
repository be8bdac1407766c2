import { expect, test } from "bun:test";
import { connectionsLine, switchSpecs } from "../../../lab/standins/lldpd.ts";

const UUID = "00000000-6d68-6c00-0000-000000000001";

test("the lab summary names the machine's switch connections, says when nothing matched, and nothing before Register", () => {
  const json = JSON.stringify({
    [UUID]: [
      { switch: "leaf01", port: "Ethernet0" },
      { switch: "leaf02", port: "Ethernet0" },
    ],
    other: [],
  });
  expect(connectionsLine(json, UUID)).toBe("connected: leaf01 Ethernet0, leaf02 Ethernet0");
  expect(connectionsLine(json, "other")).toBe(
    "connected: nothing (no neighbour's identifier matches a port the switches registered; the apiserver registers the machine without switch connections)",
  );
  expect(connectionsLine(json, "unknown")).toBeUndefined();
  expect(connectionsLine(undefined, UUID)).toBeUndefined();
});

test("the stand-in's switch table: a SONiC leaf's port with its alias, a leaf per hostname, the machine's port index", () => {
  const specs = switchSpecs(
    [
      { tap: "t0", hostname: "leaf01" },
      { tap: "t1", hostname: "leaf02" },
      { tap: "t2", hostname: "leaf01", port: 1 },
    ],
    () => ["false"],
  );
  expect(specs).toEqual([
    {
      id: "leaf01",
      os: "sonic",
      ports: [
        { name: "Ethernet0", alias: "Eth1/1(Port1)" },
        { name: "Ethernet4", alias: "Eth1/2(Port2)" },
      ],
    },
    { id: "leaf02", os: "sonic", ports: [{ name: "Ethernet0", alias: "Eth1/1(Port1)" }] },
  ]);
  // Cumulus ports carry the tap's MAC, read in the namespace; a failure names the tap.
  expect(switchSpecs([{ tap: "t0", hostname: "leaf01", os: "cumulus" }], () => ["echo", "0a:00:00:00:00:01"])).toEqual([
    { id: "leaf01", os: "cumulus", ports: [{ name: "swp1", mac: "0a:00:00:00:00:01" }] },
  ]);
  expect(() => switchSpecs([{ tap: "t0", hostname: "leaf01", os: "cumulus" }], () => ["false"])).toThrow("the MAC of t0");
});
