/**
 * Request encoders: dumps (RTM_GETLINK/GETADDR/GETROUTE with NLM_F_DUMP), the
 * link-up RTM_NEWLINK (ifi_flags=IFF_UP, ifi_change=IFF_UP, NLM_F_ACK), and the
 * per-uplink routing (docs/network.md "Uplinks"): a default route in a table of its
 * own (RTM_NEWROUTE/DELROUTE) and the rules that lead to it (RTM_NEWRULE/DELRULE).
 * Pure; every change asks for an ACK.
 */
import { ipv6Bytes } from "./addr-text.ts";
import { encodeAttr, encodeAttrU32 } from "./attrs.ts";
import * as K from "./constants.ts";
import { Writer } from "./cursor.ts";

function header(w: Writer, type: number, flags: number, seq: number): number {
  const at = w.length;
  w.u32(0).u16(type).u16(flags).u32(seq).u32(0);
  return at;
}

function finish(w: Writer, at: number): Uint8Array {
  w.setU32(at, w.length - at);
  return w.finish();
}

export function dumpLinksRequest(seq: number): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_GETLINK, K.NLM_F_REQUEST | K.NLM_F_DUMP, seq);
  w.u8(K.AF_UNSPEC).u8(0).u16(0).i32(0).u32(0).u32(0); // ifinfomsg
  return finish(w, at);
}

export function dumpAddrsRequest(seq: number, family = K.AF_INET6): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_GETADDR, K.NLM_F_REQUEST | K.NLM_F_DUMP, seq);
  w.u8(family).u8(0).u8(0).u8(0).u32(0); // ifaddrmsg
  return finish(w, at);
}

export function dumpRoutesRequest(seq: number, family = K.AF_INET6): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_GETROUTE, K.NLM_F_REQUEST | K.NLM_F_DUMP, seq);
  w.u8(family).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u32(0); // rtmsg
  return finish(w, at);
}

/** Sets or clears IFF_UP on one link; the kernel answers with an ACK (or an errno). */
export function setLinkUpRequest(seq: number, ifindex: number, up: boolean): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_NEWLINK, K.NLM_F_REQUEST | K.NLM_F_ACK, seq);
  w.u8(K.AF_UNSPEC)
    .u8(0)
    .u16(0)
    .i32(ifindex)
    .u32(up ? K.IFF_UP : 0)
    .u32(K.IFF_UP);
  return finish(w, at);
}

/** A default route (::/0) via `gateway` (a router's link-local) out of `ifindex`, in `table`. */
export interface TableDefaultRoute {
  readonly table: number;
  readonly ifindex: number;
  readonly gateway: string;
}

/**
 * RTM_NEWROUTE (create or replace) or RTM_DELROUTE of a table's default route. The
 * table goes in RTA_TABLE (rtm_table is 8 bits; RT_TABLE_UNSPEC there, as iproute2
 * does for tables above 255); protocol static, scope universe, unicast.
 */
export function tableDefaultRouteRequest(seq: number, op: "new" | "del", r: TableDefaultRoute): Uint8Array {
  const w = new Writer();
  const flags = K.NLM_F_REQUEST | K.NLM_F_ACK | (op === "new" ? K.NLM_F_CREATE | K.NLM_F_REPLACE : 0);
  const at = header(w, op === "new" ? K.RTM_NEWROUTE : K.RTM_DELROUTE, flags, seq);
  // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags
  w.u8(K.AF_INET6).u8(0).u8(0).u8(0).u8(K.RT_TABLE_UNSPEC).u8(K.RTPROT_STATIC).u8(K.RT_SCOPE_UNIVERSE).u8(K.RTN_UNICAST).u32(0);
  encodeAttrU32(w, K.RTA_TABLE, r.table);
  encodeAttr(w, K.RTA_GATEWAY, ipv6Bytes(r.gateway));
  encodeAttrU32(w, K.RTA_OIF, r.ifindex);
  return finish(w, at);
}

/**
 * An IPv6 policy rule: `from <source>/128 lookup <table>` when `source` is given,
 * else `lookup <table> suppress_prefixlength <suppressPrefixLength>` (the main table
 * without its default routes). New rules are NLM_F_CREATE|NLM_F_EXCL: the kernel
 * answers EEXIST for an identical rule instead of adding a second one.
 */
export interface PolicyRule {
  readonly priority: number;
  readonly table: number;
  readonly source?: string;
  readonly suppressPrefixLength?: number;
}

export function policyRuleRequest(seq: number, op: "new" | "del", r: PolicyRule): Uint8Array {
  const w = new Writer();
  const flags = K.NLM_F_REQUEST | K.NLM_F_ACK | (op === "new" ? K.NLM_F_CREATE | K.NLM_F_EXCL : 0);
  const at = header(w, op === "new" ? K.RTM_NEWRULE : K.RTM_DELRULE, flags, seq);
  // fib_rule_hdr: family, dst_len, src_len, tos, table, res1, res2, action, flags
  w.u8(K.AF_INET6)
    .u8(0)
    .u8(r.source !== undefined ? 128 : 0)
    .u8(0)
    .u8(K.RT_TABLE_UNSPEC)
    .u8(0)
    .u8(0)
    .u8(K.FR_ACT_TO_TBL)
    .u32(0);
  if (r.source !== undefined) encodeAttr(w, K.FRA_SRC, ipv6Bytes(r.source));
  encodeAttrU32(w, K.FRA_PRIORITY, r.priority);
  encodeAttrU32(w, K.FRA_TABLE, r.table);
  if (r.suppressPrefixLength !== undefined) encodeAttrU32(w, K.FRA_SUPPRESS_PREFIXLEN, r.suppressPrefixLength);
  return finish(w, at);
}
