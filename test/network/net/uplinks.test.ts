import { describe, expect, test } from "bun:test";
import type { Body } from "../../../src/network/netlink/message.ts";
import { addrBody, defaultRouteBody, linkBody } from "../../helpers/rtnetlink-bodies.ts";
import { decodeMessages } from "../../../src/network/netlink/message.ts";
import { findUplinks } from "../../../src/network/net/uplinks.ts";
import { fixture } from "../netlink/fixtures.ts";

const recorded = (...names: string[]): Body[] => names.flatMap((n) => fixture(n).flatMap((d) => decodeMessages(d).map((m) => m.body)));
const dump = recorded("dump-links", "dump-addrs", "dump-routes");

const link = linkBody;
const addr = addrBody;
const route = defaultRouteBody;

describe("the uplinks from one dump", () => {
  test("the recorded bring-up: its NIC with the SLAAC address and the RA's router, medium preference", () => {
    expect(findUplinks(dump, ["mhn73e1a0"])).toEqual([
      { name: "mhn73e1a0", ifindex: 2, address: "2001:db8:1::ff:fe00:aa01", router: "fe80::ccc6:2aff:fe4b:e84a", preference: "medium" },
    ]);
  });

  test("only selected NICs: lo and unselected links are never uplinks", () => {
    expect(findUplinks(dump, ["lo", "eth9"])).toEqual([]);
  });

  const two = [link(2, "eth0"), link(3, "eth1"), addr(2, "2001:db8:1::5"), addr(3, "2001:db8:2::5"), route(2, "fe80::a", 3), route(3, "fe80::b", 1)];

  test("ordered as the kernel prefers their routers (RA preference high before medium before low), not by selection", () => {
    expect(findUplinks(two, ["eth0", "eth1"]).map((u) => [u.name, u.preference])).toEqual([
      ["eth1", "high"],
      ["eth0", "low"],
    ]);
  });

  test("equal preference: the selection's order", () => {
    const same = [link(2, "eth0"), link(3, "eth1"), addr(2, "2001:db8:1::5"), addr(3, "2001:db8:2::5"), route(2, "fe80::a", 0), route(3, "fe80::b", 0)];
    expect(findUplinks(same, ["eth1", "eth0"]).map((u) => u.name)).toEqual(["eth1", "eth0"]);
  });

  test("a NIC is no uplink without carrier, without a usable address (tentative, deprecated, DAD failed) or without a default router", () => {
    expect(findUplinks([link(2, "eth0", false), addr(2, "2001:db8:1::5"), route(2, "fe80::a", 0)], ["eth0"])).toEqual([]);
    for (const flags of [0x40, 0x20, 0x08]) expect(findUplinks([link(2, "eth0"), addr(2, "2001:db8:1::5", flags), route(2, "fe80::a", 0)], ["eth0"])).toEqual([]);
    expect(findUplinks([link(2, "eth0"), addr(2, "2001:db8:1::5")], ["eth0"])).toEqual([]);
  });
});
