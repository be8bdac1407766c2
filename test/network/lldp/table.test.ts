import { expect, test } from "bun:test";
import { decodeLldpFrame, type Lldpdu } from "../../../src/network/lldp/lldpdu.ts";
import { distinctSwitches, NeighbourTable } from "../../../src/network/lldp/table.ts";
import { fixture } from "./fixtures.ts";

const du = (name: string): Lldpdu => decodeLldpFrame(fixture(name).bytes).du;
const withTtl = (d: Lldpdu, ttl: number): Lldpdu => ({ ...d, ttl });

test("a neighbour is new once, then refreshed silently, and mapped as metal-hammer reads it", () => {
  const t = new NeighbourTable();
  const d = withTtl(du("lldpd-mac-port-id"), 120);
  const first = t.update("eth0", d, 0);
  expect(first.map((c) => c.kind)).toEqual(["new"]);
  expect(first[0]?.neighbour).toEqual({
    interface: "eth0",
    chassisId: "02:11:22:33:44:01",
    chassisIdSubtype: 4,
    portId: "02:11:22:33:44:01",
    portIdSubtype: 3,
    portDescription: d.portDescription ?? "",
    systemName: "leaf01",
    ttlSeconds: 120,
    managementAddresses: ["192.0.2.11", "fe80::11:22ff:fe33:4401"],
  });
  expect(t.update("eth0", d, 1000)).toEqual([]);
  expect(t.update("eth0", { ...d, systemName: "leaf01-renamed" }, 2000).map((c) => c.kind)).toEqual(["changed"]);
});

test("a neighbour expires when its TTL runs out after the last frame, not before", () => {
  const t = new NeighbourTable();
  t.update("eth0", du("lldpd-mac-port-id"), 0); // TTL 4 s
  t.update("eth0", du("lldpd-mac-port-id"), 3000);
  expect(t.expire(6999)).toEqual([]);
  expect(t.snapshot().get("eth0")).toHaveLength(1);
  expect(t.expire(7000).map((c) => [c.kind, c.neighbour.systemName])).toEqual([["expired", "leaf01"]]);
  expect(t.snapshot().size).toBe(0);
});

test("a shutdown LLDPDU (TTL 0) removes the neighbour at once", () => {
  const t = new NeighbourTable();
  t.update("eth0", du("lldpd-mac-port-id"), 0);
  expect(t.update("eth0", du("lldpd-shutdown"), 100).map((c) => c.kind)).toEqual(["shutdown"]);
  expect(t.snapshot().size).toBe(0);
  // A shutdown for a neighbour we never saw changes nothing.
  expect(t.update("eth1", du("lldpd-shutdown"), 200)).toEqual([]);
});

test("neighbours are kept per interface and per chassis+port; switches are counted by distinct system name", () => {
  const t = new NeighbourTable();
  t.update("eth0", withTtl(du("lldpd-mac-port-id"), 60), 0);
  t.update("eth1", withTtl(du("lldpd-ifname-port-id"), 60), 0);
  t.update("eth1", withTtl(du("lldpd-local-port-id"), 60), 0);
  const s = t.snapshot();
  expect([...s.keys()].sort()).toEqual(["eth0", "eth1"]);
  expect(
    s
      .get("eth1")
      ?.map((n) => n.systemName)
      .sort(),
  ).toEqual(["leaf02", "leaf03"]);
  expect(distinctSwitches(s)).toEqual(["leaf01", "leaf02", "leaf03"]);
});

test("the same switch on two ports counts once, and a neighbour without a system name not at all", () => {
  const t = new NeighbourTable();
  const d = withTtl(du("lldpd-mac-port-id"), 60);
  t.update("eth0", d, 0);
  t.update("eth1", d, 0);
  const { systemName: _, ...noName } = d;
  t.update("eth2", { ...noName, chassisId: { ...d.chassisId, value: "other" } }, 0);
  expect(distinctSwitches(t.snapshot())).toEqual(["leaf01"]);
});

/** The frame of a peer that claims a new switch in each LLDPDU: chassis id `n`, TTL 65535. */
const floodFrame = (d: Lldpdu, n: number): Lldpdu => ({ ...d, ttl: 65535, chassisId: { ...d.chassisId, value: `flood-${n}` }, systemName: `flood-${n}` });

test("a NIC keeps at most 4 neighbours: a new one replaces the one heard from least recently", () => {
  const t = new NeighbourTable();
  const d = withTtl(du("lldpd-mac-port-id"), 120);
  t.update("eth0", d, 0); // the real switch, refreshed at 2500 below
  for (let i = 1; i <= 3; i++) t.update("eth0", floodFrame(d, i), i * 1000);
  t.update("eth0", d, 2500);
  expect(
    t
      .snapshot()
      .get("eth0")
      ?.map((n) => n.systemName),
  ).toEqual(["leaf01", "flood-1", "flood-2", "flood-3"]);
  // The fifth replaces flood-1 (heard at 1000), not leaf01 (heard at 2500).
  const c = t.update("eth0", floodFrame(d, 4), 4000);
  expect(c.map((x) => [x.kind, x.neighbour.systemName])).toEqual([
    ["replaced", "flood-1"],
    ["new", "flood-4"],
  ]);
  expect(
    t
      .snapshot()
      .get("eth0")
      ?.map((n) => n.systemName),
  ).toEqual(["leaf01", "flood-2", "flood-3", "flood-4"]);
  // Another NIC has its own four.
  t.update("eth1", d, 4000);
  expect(t.snapshot().get("eth1")).toHaveLength(1);
});

test("a TTL is honoured up to 300 s: a neighbour sending 65535 is dropped 300 s after its last frame", () => {
  const t = new NeighbourTable();
  const d = withTtl(du("lldpd-mac-port-id"), 65535);
  t.update("eth0", d, 0);
  expect(t.expire(299_999)).toEqual([]);
  expect(t.expire(300_000).map((c) => c.kind)).toEqual(["expired"]);
  // What it announced is still reported as it came.
  t.update("eth0", d, 400_000);
  expect(t.snapshot().get("eth0")?.[0]?.ttlSeconds).toBe(65535);
});

test("a flood of 6,000 frames with a new chassis id each (60 s at the reader's 100 a second) leaves 4 neighbours, and each frame costs a bounded pass", () => {
  const t = new NeighbourTable();
  const d = du("lldpd-mac-port-id");
  let replaced = 0;
  const t0 = performance.now();
  for (let i = 0; i < 6_000; i++) for (const c of t.update("eth0", floodFrame(d, i), i * 10)) if (c.kind === "replaced") replaced++;
  const ms = performance.now() - t0;
  expect(
    t
      .snapshot()
      .get("eth0")
      ?.map((n) => n.systemName),
  ).toEqual(["flood-5996", "flood-5997", "flood-5998", "flood-5999"]);
  expect(replaced).toBe(5_996);
  // 6,090 entries took an O(n) pass per frame before; four now (well under a second on any machine).
  expect(ms).toBeLessThan(1_000);
});
