/** The uplink table's shell over a fake rtnetlink socket: what it writes, what it offers, what it logs. */
import { describe, expect, test } from "bun:test";
import type { Body } from "../../../src/network/netlink/message.ts";
import { addrBody, defaultRouteBody, linkBody } from "../../helpers/rtnetlink-bodies.ts";
import { decodeMessages } from "../../../src/network/netlink/message.ts";
import { NetlinkError, type NetlinkSocket } from "../../../src/network/netlink/socket.ts";
import { UplinkTable } from "../../../src/network/net/uplink-table.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

const link = linkBody;
const addr = addrBody;
const route = defaultRouteBody;

/** A socket whose dumps are `state` and whose changes are recorded by message type (24/25 route new/del, 32/33 rule new/del), failing with `fail`'s errno. */
function fakeSocket(state: { links: Body[]; addrs: Body[]; routes: Body[] }, fail: (what: string) => number | undefined = () => undefined) {
  const writes: string[] = [];
  const socket = {
    dumpLinks: () => state.links,
    dumpAddrs: () => state.addrs,
    dumpRoutes: () => state.routes,
    request: (what: string, build: (seq: number) => Uint8Array) => {
      const type = decodeMessages(build(1))[0]?.header.type;
      writes.push(`${type} ${what}`);
      const errno = fail(what);
      if (errno !== undefined) throw new NetlinkError(what, errno);
      return [];
    },
    close: () => {},
  };
  return { socket: socket as unknown as NetlinkSocket, writes };
}

/** The background look, run by hand: `tick()` is one interval passing. */
const manual = {
  fns: [] as (() => void)[],
  every(fn: () => void): () => void {
    manual.fns.push(fn);
    return () => manual.fns.splice(manual.fns.indexOf(fn), 1);
  },
  tick(): void {
    for (const fn of [...manual.fns]) fn();
  },
};

const two = () => ({ links: [link(2, "eth0"), link(3, "eth1")], addrs: [addr(2, "2001:db8:1::5"), addr(3, "2001:db8:2::5")], routes: [route(2, "fe80::a"), route(3, "fe80::b")] });

describe("the uplink table", () => {
  test("following two ready NICs: the main-first rule, then each table's route and source rule; both offered, one net.uplink line each", () => {
    const { socket, writes } = fakeSocket(two());
    const cap = capturingLogger();
    let changes = 0;
    let now = 0;
    const t = new UplinkTable({ log: cap.log, every: manual.every, socket: () => socket, now: () => now, onChange: () => changes++ });
    expect(t.follow(["eth0", "eth1"]).map((u) => u.name)).toEqual(["eth0", "eth1"]);
    expect(writes).toEqual([
      "32 add rule lookup main suppress_prefixlength 0 priority 999",
      "24 add default via fe80::a dev eth0 table 1002",
      "32 add rule from 2001:db8:1::5 lookup 1002 priority 1000",
      "24 add default via fe80::b dev eth1 table 1003",
      "32 add rule from 2001:db8:2::5 lookup 1003 priority 1000",
    ]);
    expect(cap.events("net.uplink").map((e) => [e.ifname, e.change])).toEqual([
      ["eth0", "added"],
      ["eth1", "added"],
    ]);
    expect(changes).toBe(1);
    // Within the refresh interval nothing is dumped or written again.
    now = 500;
    t.current();
    expect(writes).toHaveLength(5);
  });

  test("a rule already there (EEXIST, a resumed run) is what was wanted: the uplink is offered, no warning", () => {
    const { socket } = fakeSocket(two(), (what) => (what.includes("rule from") ? 17 : undefined));
    const cap = capturingLogger();
    const t = new UplinkTable({ log: cap.log, every: manual.every, socket: () => socket });
    expect(t.follow(["eth0", "eth1"])).toHaveLength(2);
    expect(cap.events("net.uplink.routing")).toEqual([]);
  });

  test("a route the kernel refuses: a warning naming the step and errno, that uplink's rule not written and the uplink not offered; the other one is", () => {
    const { socket, writes } = fakeSocket(two(), (what) => (what.includes("dev eth1") ? 1 : undefined));
    const cap = capturingLogger();
    const t = new UplinkTable({ log: cap.log, every: manual.every, socket: () => socket });
    expect(t.follow(["eth0", "eth1"]).map((u) => u.name)).toEqual(["eth0"]);
    expect(writes.some((w) => w.includes("from 2001:db8:2::5"))).toBe(false);
    expect(cap.events("net.uplink.routing")).toMatchObject([
      { level: 40, ifname: "eth1", step: "add default via fe80::b dev eth1 table 1003", msg: "add default via fe80::b dev eth1 table 1003: EPERM" },
    ]);
  });

  test("carrier gone on one NIC: its rule and route removed (already gone with the link is fine), a net.uplink dropped line, kept in the facts as dropped; close removes the rest", () => {
    const state = two();
    const { socket, writes } = fakeSocket(state, (what) => (what.startsWith("delete default via fe80::a") ? 3 : undefined));
    const cap = capturingLogger();
    let now = 0;
    const t = new UplinkTable({ log: cap.log, every: manual.every, socket: () => socket, now: () => now });
    t.follow(["eth0", "eth1"]);
    writes.length = 0;
    state.links = [link(2, "eth0", false), link(3, "eth1")];
    now = 1000;
    expect(t.current().map((u) => u.name)).toEqual(["eth1"]);
    expect(writes).toEqual(["33 delete rule from 2001:db8:1::5 lookup 1002 priority 1000", "25 delete default via fe80::a dev eth0 table 1002"]);
    expect(cap.events("net.uplink").at(-1)).toMatchObject({ ifname: "eth0", change: "dropped", level: 40 });
    expect(cap.events("net.uplink.routing")).toEqual([]);
    expect(t.facts().map((f) => [f.name, f.up])).toEqual([
      ["eth1", true],
      ["eth0", false],
    ]);
    writes.length = 0;
    t.close();
    expect(writes).toEqual([
      "33 delete rule from 2001:db8:2::5 lookup 1003 priority 1000",
      "25 delete default via fe80::b dev eth1 table 1003",
      "33 delete rule lookup main suppress_prefixlength 0 priority 999",
    ]);
  });

  test("in the background: a NIC whose carrier goes is dropped at the next interval without any request, onChange told; close stops the look", () => {
    manual.fns.length = 0;
    const state = two();
    const { socket } = fakeSocket(state);
    const cap = capturingLogger();
    let changes = 0;
    const t = new UplinkTable({ log: cap.log, every: manual.every, socket: () => socket, onChange: () => changes++ });
    t.follow(["eth0", "eth1"]);
    expect(manual.fns).toHaveLength(1);
    state.links = [linkBody(2, "eth0"), linkBody(3, "eth1", false)];
    manual.tick();
    expect(changes).toBe(2);
    expect(cap.events("net.uplink").at(-1)).toMatchObject({ ifname: "eth1", change: "dropped" });
    t.close();
    expect(manual.fns).toHaveLength(0);
  });
});
