import { describe, expect, test } from "bun:test";
import { policyRuleRequest, tableDefaultRouteRequest } from "../../../src/network/netlink/request.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("per-uplink routing requests, byte for byte", () => {
  test("a table's default route: RTM_NEWROUTE create|replace|ack, rtmsg static/universe/unicast, then RTA_TABLE, RTA_GATEWAY, RTA_OIF", () => {
    expect(hex(tableDefaultRouteRequest(7, "new", { table: 1002, ifindex: 2, gateway: "fe80::1" }))).toBe(
      "40000000" +
        "1800" + // RTM_NEWROUTE
        "0505" + // NLM_F_REQUEST|NLM_F_ACK|NLM_F_REPLACE|NLM_F_CREATE
        "07000000" +
        "00000000" +
        "0a000000" + // AF_INET6, dst_len 0, src_len 0, tos 0
        "00040001" + // table RT_TABLE_UNSPEC (the table is RTA_TABLE), RTPROT_STATIC, RT_SCOPE_UNIVERSE, RTN_UNICAST
        "00000000" +
        "08000f00" +
        "ea030000" + // RTA_TABLE 1002
        "14000500" +
        "fe800000000000000000000000000001" + // RTA_GATEWAY fe80::1
        "08000400" +
        "02000000", // RTA_OIF 2
    );
  });

  test("its removal is RTM_DELROUTE with only NLM_F_REQUEST|NLM_F_ACK, the same body", () => {
    const del = hex(tableDefaultRouteRequest(7, "del", { table: 1002, ifindex: 2, gateway: "fe80::1" }));
    expect(del.slice(8, 16)).toBe("19000500");
    expect(del.slice(16)).toBe(hex(tableDefaultRouteRequest(7, "new", { table: 1002, ifindex: 2, gateway: "fe80::1" })).slice(16));
  });

  test("a source rule: RTM_NEWRULE create|excl|ack, fib_rule_hdr src_len 128 action FR_ACT_TO_TBL, then FRA_SRC, FRA_PRIORITY, FRA_TABLE", () => {
    expect(hex(policyRuleRequest(8, "new", { priority: 1000, table: 1002, source: "2001:db8:1::5" }))).toBe(
      "40000000" +
        "2000" + // RTM_NEWRULE
        "0506" + // NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE
        "08000000" +
        "00000000" +
        "0a008000" + // AF_INET6, dst_len 0, src_len 128, tos 0
        "00000001" + // table RT_TABLE_UNSPEC, res1, res2, FR_ACT_TO_TBL
        "00000000" +
        "14000200" +
        "20010db8000100000000000000000005" + // FRA_SRC
        "08000600" +
        "e8030000" + // FRA_PRIORITY 1000
        "08000f00" +
        "ea030000", // FRA_TABLE 1002
    );
  });

  test("the main table without its defaults: no FRA_SRC, src_len 0, FRA_SUPPRESS_PREFIXLEN 0; removal is RTM_DELRULE", () => {
    const rule = { priority: 999, table: 254, suppressPrefixLength: 0 };
    expect(hex(policyRuleRequest(9, "new", rule))).toBe(
      "34000000" + "2000" + "0506" + "09000000" + "00000000" + "0a000000" + "00000001" + "00000000" + "08000600" + "e7030000" + "08000f00" + "fe000000" + "08000e00" + "00000000",
    );
    expect(hex(policyRuleRequest(9, "del", rule)).slice(8, 16)).toBe("21000500");
  });
});
