import { describe, expect, test } from "bun:test";
import { describeStep, planUplinkRouting, routingRequest } from "../../../src/network/net/uplink-routing.ts";
import type { Uplink } from "../../../src/network/net/uplinks.ts";

const eth0: Uplink = { name: "eth0", ifindex: 2, address: "2001:db8:1::5", router: "fe80::a", preference: "high" };
const eth1: Uplink = { name: "eth1", ifindex: 3, address: "2001:db8:2::5", router: "fe80::b", preference: "medium" };
const words = (a: readonly Uplink[], b: readonly Uplink[]) => planUplinkRouting(a, b).map(describeStep);

describe("the routing plan of the uplinks", () => {
  test("the first uplinks: the main table without defaults first, then per uplink its table's default route before its source rule", () => {
    expect(words([], [eth0, eth1])).toEqual([
      "add rule lookup main suppress_prefixlength 0 priority 999",
      "add default via fe80::a dev eth0 table 1002",
      "add rule from 2001:db8:1::5 lookup 1002 priority 1000",
      "add default via fe80::b dev eth1 table 1003",
      "add rule from 2001:db8:2::5 lookup 1003 priority 1000",
    ]);
  });

  test("nothing changed: no step (a changed preference alone changes no route)", () => {
    expect(words([eth0, eth1], [{ ...eth1, preference: "low" }, eth0])).toEqual([]);
  });

  test("an uplink dropped: its rule, then its route; the others stay", () => {
    expect(words([eth0, eth1], [eth1])).toEqual(["delete rule from 2001:db8:1::5 lookup 1002 priority 1000", "delete default via fe80::a dev eth0 table 1002"]);
  });

  test("a new router on the same NIC: removed and written again", () => {
    expect(words([eth0], [{ ...eth0, router: "fe80::c" }])).toEqual([
      "delete rule from 2001:db8:1::5 lookup 1002 priority 1000",
      "delete default via fe80::a dev eth0 table 1002",
      "add default via fe80::c dev eth0 table 1002",
      "add rule from 2001:db8:1::5 lookup 1002 priority 1000",
    ]);
  });

  test("the last uplink gone: the main-first rule goes after it", () => {
    expect(words([eth0], [])).toEqual([
      "delete rule from 2001:db8:1::5 lookup 1002 priority 1000",
      "delete default via fe80::a dev eth0 table 1002",
      "delete rule lookup main suppress_prefixlength 0 priority 999",
    ]);
  });

  test("each step's request is the encoder's: RTM_NEWROUTE for a route, RTM_NEWRULE/DELRULE for the rules", () => {
    const [mainFirst, route, rule] = planUplinkRouting([], [eth0]);
    const type = (s: Parameters<typeof routingRequest>[0]) => Buffer.from(routingRequest(s)(1)).readUInt16LE(4);
    expect([mainFirst, route, rule].map((s) => type(s!))).toEqual([32, 24, 32]);
    expect(type(planUplinkRouting([eth0], [])[0]!)).toBe(33);
  });
});
