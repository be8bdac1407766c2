import { describe, expect, test } from "bun:test";
import * as K from "../../../src/network/netlink/constants.ts";
import { InterfaceMachine } from "../../../src/network/net/machine.ts";
import { addr, defaultRoute, dnssl, link, prefix, rdnss, UP, UP_CARRIER } from "./feed.ts";

const GUA = "2001:db8:1::ff:fe00:aa01";
const LL = "fe80::ff:fe00:aa01";
const ROUTER = "fe80::1";

function machine() {
  return new InterfaceMachine(2, "eth0", "02:00:00:00:aa:01", 0);
}

describe("InterfaceMachine", () => {
  test("walks admin up -> carrier -> RA -> tentative -> DAD done -> route -> ready, one event per milestone with its time", () => {
    const m = machine();
    const seen: [string, number][] = [];
    const feed = (b: Parameters<InterfaceMachine["apply"]>[0], t: number) => m.apply(b, t).forEach((e) => seen.push([e.event, e.t]));
    expect(m.step(false)).toBe("admin");
    feed(link(UP), 1);
    expect(m.step(false)).toBe("carrier");
    feed(link(UP_CARRIER), 2);
    expect(m.step(false)).toBe("ra");
    feed(addr(LL, K.IFA_F_PERMANENT | K.IFA_F_TENTATIVE), 3);
    feed(defaultRoute(ROUTER), 10);
    feed(prefix("2001:db8:1::", true), 11);
    expect(m.wantAddrDump).toBe(true); // the tentative SLAAC address is not announced: the shell dumps
    feed(addr(GUA, K.IFA_F_TENTATIVE), 12);
    expect(m.step(false)).toBe("dad");
    feed(addr(LL, K.IFA_F_PERMANENT), 13);
    feed(addr(GUA, 0), 20);
    expect(m.step(false)).toBe("ready");
    expect(seen).toEqual([
      ["net.link.up", 1],
      ["net.link.carrier", 2],
      ["net.ra.seen", 10],
      ["net.route.default", 10],
      ["net.addr.tentative", 12],
      ["net.ll.ready", 13],
      ["net.dad.done", 20],
    ]);
  });

  test("repeated RAs (NEWADDR, NEWROUTE, NDUSEROPT again) do not repeat milestones", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 1);
    const first = [...m.apply(defaultRoute(ROUTER), 2), ...m.apply(addr(GUA, 0), 3), ...m.apply(rdnss(["2001:db8::53"], 30), 3)];
    const again = [...m.apply(defaultRoute(ROUTER), 4), ...m.apply(addr(GUA, 0), 5), ...m.apply(rdnss(["2001:db8::53"], 30), 5)];
    expect(first.map((e) => e.event as string)).toEqual(["net.ra.seen", "net.route.default", "net.dad.done", "net.dns"]);
    expect(again).toEqual([]);
  });

  test("a SLAAC address deleted with dadfailed|tentative fails the interface at once, naming the address", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 1);
    m.apply(defaultRoute(ROUTER), 2);
    const ev = m.apply(addr(GUA, K.IFA_F_DADFAILED | K.IFA_F_TENTATIVE, { op: "del" }), 3);
    expect(ev).toEqual([{ event: "net.dad.failed", t: 3, fields: { ifname: "eth0", address: GUA }, level: "error" }]);
    expect(m.step(false)).toBe("failed");
    expect(m.explain(false, 5000)).toBe(`eth0: duplicate address ${GUA} (DAD failed)`);
  });

  test("a link-local or manual address flagged dadfailed (still present) fails the interface", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 1);
    const ev = m.apply(addr(LL, K.IFA_F_DADFAILED | K.IFA_F_TENTATIVE | K.IFA_F_PERMANENT), 2);
    expect(ev.map((e) => e.event)).toEqual(["net.dad.failed"]);
    expect(m.failed).toEqual({ address: LL });
  });

  test("events for another interface are ignored", () => {
    const m = machine();
    expect(m.apply(link(UP_CARRIER, { ifindex: 3 }), 1)).toEqual([]);
    expect(m.apply(addr(GUA, K.IFA_F_DADFAILED, { ifindex: 3, op: "del" }), 1)).toEqual([]);
    expect(m.apply(defaultRoute(ROUTER, { oif: 3 }), 1)).toEqual([]);
    expect(m.step(false)).toBe("admin");
  });

  test("router lifetime 0: address usable but no default route, and the reason says so", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 1);
    m.apply(prefix("2001:db8:1::", true), 2);
    m.apply(addr(GUA, 0), 3);
    expect(m.step(false)).toBe("route");
    expect(m.explain(false, 9000)).toContain("no default route (router lifetime 0");
  });

  test("a prefix with the autonomous flag off: no SLAAC address, and the reason names the prefix", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 1);
    m.apply(defaultRoute(ROUTER), 2);
    m.apply(prefix("2001:db8:1::", false), 2);
    expect(m.step(false)).toBe("prefix");
    expect(m.explain(false, 9000)).toBe("eth0: no SLAAC address: prefix 2001:db8:1::/64 has the autonomous flag off");
  });

  test("no RA: the reason names the interface and the time", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 1);
    m.apply(addr(LL, K.IFA_F_PERMANENT), 2);
    expect(m.explain(false, 30_000)).toBe("eth0: no router advertisement after 30s");
  });

  test("DNS: RDNSS and DNSSL tracked with lifetimes; lifetime 0 removes; expiry removes", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 0);
    expect(
      m
        .apply(rdnss(["2001:db8::53", "2001:db8::54"], 30), 1000)
        .filter((e) => e.event === "net.dns")
        .map((e) => e.fields),
    ).toEqual([{ ifname: "eth0", servers: ["2001:db8::53", "2001:db8::54"], search: [] }]);
    m.apply(dnssl(["lab.example"], 60), 1000);
    expect(m.nextExpiry()).toBe(31_000);
    expect(m.apply(rdnss(["2001:db8::54"], 0), 2000).map((e) => e.fields.servers)).toEqual([["2001:db8::53"]]);
    expect(m.tick(30_999)).toEqual([]);
    expect(m.tick(31_000).map((e) => e.fields)).toEqual([{ ifname: "eth0", servers: [], search: ["lab.example"] }]);
    expect(m.tick(61_000).map((e) => e.fields)).toEqual([{ ifname: "eth0", servers: [], search: [] }]);
  });

  test("DNS needed: ready only with an RDNSS server", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 0);
    m.apply(defaultRoute(ROUTER), 1);
    m.apply(addr(GUA, 0), 2);
    expect(m.step(true)).toBe("dns");
    expect(m.step(false)).toBe("ready");
    m.apply(rdnss(["2001:db8::53"], 0xffffffff), 3);
    expect(m.step(true)).toBe("ready");
    expect(m.nextExpiry()).toBe(Infinity);
  });

  test("link flap: carrier loss drops the routes and logs net.link.down; recovery is followed", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 0);
    m.apply(defaultRoute(ROUTER), 1);
    m.apply(addr(GUA, 0), 2);
    expect(m.step(false)).toBe("ready");
    expect(m.apply(link(UP), 3).map((e) => e.event)).toEqual(["net.link.down"]);
    expect(m.step(false)).toBe("carrier");
    expect(m.carrierLostAt).toBe(3);
    expect(m.apply(link(UP_CARRIER), 4).map((e) => e.fields)).toEqual([{ ifname: "eth0", again: true }]);
    m.apply(addr(GUA, K.IFA_F_TENTATIVE), 5); // the kernel redoes DAD after carrier returns
    expect(m.step(false)).toBe("dad");
    m.apply(defaultRoute(ROUTER), 6);
    expect(m.routers.size).toBe(1);
    m.apply(addr(GUA, 0), 7);
    expect(m.step(false)).toBe("ready");
  });

  test("an optimistic address is still tentative: not ready until DAD completes", () => {
    const m = machine();
    m.apply(link(UP_CARRIER), 0);
    m.apply(defaultRoute(ROUTER), 1);
    const ev = m.apply(addr(GUA, K.IFA_F_TENTATIVE | K.IFA_F_OPTIMISTIC), 2);
    expect(ev[0]?.fields).toEqual({ ifname: "eth0", address: `${GUA}/64`, optimistic: true });
    expect(m.step(false)).toBe("dad");
  });
});
