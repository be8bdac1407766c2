/**
 * rtnetlink messages: nlmsghdr framing, then one typed decoder per family header
 * (ifinfomsg, ifaddrmsg, rtmsg, prefixmsg, nduseroptmsg, nlmsgerr). Pure: bytes in,
 * plain objects out; every length is checked and every attribute kept (`attrs`).
 */
import { decodeAttrs, findAttr, attrString, attrU32, attrU8, type Attr } from "./attrs.ts";
import { macText } from "../../platform/ids/mac.ts";
import { ipv6Text } from "./addr-text.ts";
import * as K from "./constants.ts";
import { NetlinkDecodeError, align4, need, view } from "./cursor.ts";
import { decodeNdOptions, type NdOption } from "./ndopt.ts";

export interface Header {
  readonly len: number;
  readonly type: number;
  readonly flags: number;
  readonly seq: number;
  readonly pid: number;
}

export interface LinkMsg {
  readonly kind: "link";
  readonly op: "new" | "del";
  readonly family: number;
  readonly ifindex: number;
  readonly flags: number;
  readonly change: number;
  readonly name: string | undefined;
  readonly mac: string | undefined;
  readonly mtu: number | undefined;
  readonly operstate: number | undefined;
  readonly carrier: boolean | undefined;
  /** IFLA_LINKINFO/IFLA_INFO_KIND ("veth", "bridge", ...), absent for plain devices. */
  readonly linkKind: string | undefined;
  readonly attrs: readonly Attr[];
}

export interface AddrCacheInfo {
  readonly preferred: number;
  readonly valid: number;
  readonly cstamp: number;
  readonly tstamp: number;
}

export interface AddrMsg {
  readonly kind: "addr";
  readonly op: "new" | "del";
  readonly family: number;
  readonly prefixlen: number;
  /** IFA_FLAGS when present (32 bits), else the 8-bit header field. */
  readonly flags: number;
  readonly scope: number;
  readonly ifindex: number;
  readonly address: string | undefined;
  readonly cacheinfo: AddrCacheInfo | undefined;
  readonly attrs: readonly Attr[];
}

export interface RouteMsg {
  readonly kind: "route";
  readonly op: "new" | "del";
  readonly family: number;
  readonly dstLen: number;
  readonly table: number;
  readonly protocol: number;
  readonly scope: number;
  readonly type: number;
  readonly dst: string | undefined;
  readonly gateway: string | undefined;
  readonly oif: number | undefined;
  readonly priority: number | undefined;
  readonly pref: number | undefined;
  /** Seconds until expiry from RTA_CACHEINFO (kernel clock_t, 1/100 s), when it expires. */
  readonly expiresS: number | undefined;
  readonly attrs: readonly Attr[];
}

export interface PrefixMsg {
  readonly kind: "prefix";
  readonly family: number;
  readonly ifindex: number;
  readonly prefixlen: number;
  readonly flags: number;
  readonly prefix: string | undefined;
  readonly preferred: number | undefined;
  readonly valid: number | undefined;
  readonly attrs: readonly Attr[];
}

export interface UserOptMsg {
  readonly kind: "useropt";
  readonly family: number;
  readonly ifindex: number;
  readonly icmpType: number;
  readonly options: readonly NdOption[];
  /** The router that sent the RA (NDUSEROPT_SRCADDR). */
  readonly source: string | undefined;
  readonly attrs: readonly Attr[];
}

/** NLMSG_ERROR: errno 0 is an ACK; `request` is the header of the request it answers. */
export interface ErrorMsg {
  readonly kind: "error";
  readonly errno: number;
  readonly request: Header | undefined;
  readonly extAckMsg: string | undefined;
}

export type Body =
  | LinkMsg
  | AddrMsg
  | RouteMsg
  | PrefixMsg
  | UserOptMsg
  | ErrorMsg
  | { readonly kind: "done" }
  | { readonly kind: "overrun" }
  | { readonly kind: "other"; readonly payload: Uint8Array };

export interface Message {
  readonly header: Header;
  readonly body: Body;
}

export function decodeHeader(buf: Uint8Array, off: number): Header {
  need(buf, off, K.NLMSG_HDRLEN, "nlmsghdr");
  const dv = view(buf);
  return {
    len: dv.getUint32(off, true),
    type: dv.getUint16(off + 4, true),
    flags: dv.getUint16(off + 6, true),
    seq: dv.getUint32(off + 8, true),
    pid: dv.getUint32(off + 12, true),
  };
}

/** Splits one datagram (which may hold several messages) into framed messages. */
export function splitMessages(buf: Uint8Array): { header: Header; payload: Uint8Array }[] {
  const out: { header: Header; payload: Uint8Array }[] = [];
  let off = 0;
  while (off < buf.byteLength) {
    const header = decodeHeader(buf, off);
    if (header.len < K.NLMSG_HDRLEN) throw new NetlinkDecodeError(`nlmsghdr at offset ${off}: nlmsg_len ${header.len} is shorter than the 16-byte header`);
    if (off + header.len > buf.byteLength)
      throw new NetlinkDecodeError(`nlmsghdr type ${header.type} at offset ${off}: nlmsg_len ${header.len} runs past the end (${buf.byteLength - off} bytes left)`);
    out.push({ header, payload: buf.subarray(off + K.NLMSG_HDRLEN, off + header.len) });
    off += align4(header.len);
  }
  return out;
}

const opOf = (type: number, del: number): "new" | "del" => (type === del ? "del" : "new");

function decodeLink(type: number, p: Uint8Array): LinkMsg {
  need(p, 0, 16, "ifinfomsg");
  const dv = view(p);
  const attrs = decodeAttrs(p.subarray(16), "link attribute");
  const a = (t: number) => findAttr(attrs, t);
  const addr = a(K.IFLA_ADDRESS);
  const info = a(K.IFLA_LINKINFO);
  const kindAttr = info ? findAttr(decodeAttrs(info.data, "IFLA_LINKINFO attribute"), K.IFLA_INFO_KIND) : undefined;
  const name = a(K.IFLA_IFNAME);
  const mtu = a(K.IFLA_MTU);
  const oper = a(K.IFLA_OPERSTATE);
  const carrier = a(K.IFLA_CARRIER);
  return {
    kind: "link",
    op: opOf(type, K.RTM_DELLINK),
    family: dv.getUint8(0),
    ifindex: dv.getInt32(4, true),
    flags: dv.getUint32(8, true),
    change: dv.getUint32(12, true),
    name: name ? attrString(name) : undefined,
    mac: addr ? macText(addr.data) : undefined,
    mtu: mtu ? attrU32(mtu, "IFLA_MTU") : undefined,
    operstate: oper ? attrU8(oper, "IFLA_OPERSTATE") : undefined,
    carrier: carrier ? attrU8(carrier, "IFLA_CARRIER") !== 0 : undefined,
    linkKind: kindAttr ? attrString(kindAttr) : undefined,
    attrs,
  };
}

function decodeAddr(type: number, p: Uint8Array): AddrMsg {
  need(p, 0, 8, "ifaddrmsg");
  const dv = view(p);
  const attrs = decodeAttrs(p.subarray(8), "address attribute");
  const flagsAttr = findAttr(attrs, K.IFA_FLAGS);
  const addr = findAttr(attrs, K.IFA_LOCAL) ?? findAttr(attrs, K.IFA_ADDRESS);
  const ci = findAttr(attrs, K.IFA_CACHEINFO);
  const family = dv.getUint8(0);
  let cacheinfo: AddrCacheInfo | undefined;
  if (ci) {
    need(ci.data, 0, 16, "IFA_CACHEINFO");
    const c = view(ci.data);
    cacheinfo = { preferred: c.getUint32(0, true), valid: c.getUint32(4, true), cstamp: c.getUint32(8, true), tstamp: c.getUint32(12, true) };
  }
  return {
    kind: "addr",
    op: opOf(type, K.RTM_DELADDR),
    family,
    prefixlen: dv.getUint8(1),
    flags: flagsAttr ? attrU32(flagsAttr, "IFA_FLAGS") : dv.getUint8(2),
    scope: dv.getUint8(3),
    ifindex: dv.getUint32(4, true),
    address: addr && family === K.AF_INET6 ? ipv6Text(addr.data, "IFA_ADDRESS") : undefined,
    cacheinfo,
    attrs,
  };
}

function decodeRoute(type: number, p: Uint8Array): RouteMsg {
  need(p, 0, 12, "rtmsg");
  const dv = view(p);
  const attrs = decodeAttrs(p.subarray(12), "route attribute");
  const a = (t: number) => findAttr(attrs, t);
  const family = dv.getUint8(0);
  const v6 = (t: number, what: string) => {
    const x = a(t);
    return x && family === K.AF_INET6 ? ipv6Text(x.data, what) : undefined;
  };
  const table = a(K.RTA_TABLE);
  const oif = a(K.RTA_OIF);
  const prio = a(K.RTA_PRIORITY);
  const pref = a(K.RTA_PREF);
  const ci = a(K.RTA_CACHEINFO);
  let expiresS: number | undefined;
  if (ci) {
    need(ci.data, 0, 12, "RTA_CACHEINFO");
    const e = view(ci.data).getInt32(8, true);
    expiresS = e !== 0 ? e / 100 : undefined;
  }
  return {
    kind: "route",
    op: opOf(type, K.RTM_DELROUTE),
    family,
    dstLen: dv.getUint8(1),
    table: table ? attrU32(table, "RTA_TABLE") : dv.getUint8(4),
    protocol: dv.getUint8(5),
    scope: dv.getUint8(6),
    type: dv.getUint8(7),
    dst: v6(K.RTA_DST, "RTA_DST"),
    gateway: v6(K.RTA_GATEWAY, "RTA_GATEWAY"),
    oif: oif ? attrU32(oif, "RTA_OIF") : undefined,
    priority: prio ? attrU32(prio, "RTA_PRIORITY") : undefined,
    pref: pref ? attrU8(pref, "RTA_PREF") : undefined,
    expiresS,
    attrs,
  };
}

function decodePrefix(p: Uint8Array): PrefixMsg {
  need(p, 0, 12, "prefixmsg");
  const dv = view(p);
  const attrs = decodeAttrs(p.subarray(12), "prefix attribute");
  const addr = findAttr(attrs, K.PREFIX_ADDRESS);
  const ci = findAttr(attrs, K.PREFIX_CACHEINFO);
  if (ci) need(ci.data, 0, 8, "PREFIX_CACHEINFO");
  return {
    kind: "prefix",
    family: dv.getUint8(0),
    ifindex: dv.getInt32(4, true),
    prefixlen: dv.getUint8(9),
    flags: dv.getUint8(10),
    prefix: addr ? ipv6Text(addr.data, "PREFIX_ADDRESS") : undefined,
    preferred: ci ? view(ci.data).getUint32(0, true) : undefined,
    valid: ci ? view(ci.data).getUint32(4, true) : undefined,
    attrs,
  };
}

function decodeUserOpt(p: Uint8Array): UserOptMsg {
  need(p, 0, 16, "nduseroptmsg");
  const dv = view(p);
  const optsLen = dv.getUint16(2, true);
  need(p, 16, optsLen, "nduseroptmsg options (nduseropt_opts_len)");
  const attrStart = Math.min(p.byteLength, 16 + align4(optsLen));
  const attrs = decodeAttrs(p.subarray(attrStart), "nduseropt attribute");
  const src = findAttr(attrs, K.NDUSEROPT_SRCADDR);
  return {
    kind: "useropt",
    family: dv.getUint8(0),
    ifindex: dv.getInt32(4, true),
    icmpType: dv.getUint8(8),
    options: decodeNdOptions(p.subarray(16, 16 + optsLen)),
    source: src ? ipv6Text(src.data, "NDUSEROPT_SRCADDR") : undefined,
    attrs,
  };
}

function decodeError(h: Header, p: Uint8Array): ErrorMsg {
  need(p, 0, 4, "nlmsgerr");
  const errno = -view(p).getInt32(0, true);
  const request = p.byteLength >= 4 + K.NLMSG_HDRLEN ? decodeHeader(p, 4) : undefined;
  let extAckMsg: string | undefined;
  if (h.flags & K.NLM_F_ACK_TLVS && request) {
    // Capped: only the request header is echoed; else the whole request.
    const echoed = h.flags & K.NLM_F_CAPPED ? K.NLMSG_HDRLEN : request.len;
    const tlvStart = 4 + align4(echoed);
    if (tlvStart <= p.byteLength) {
      const m = findAttr(decodeAttrs(p.subarray(tlvStart), "extended ACK attribute"), 1 /* NLMSGERR_ATTR_MSG */);
      if (m) extAckMsg = attrString(m);
    }
  }
  return { kind: "error", errno, request, extAckMsg };
}

export function decodeBody(h: Header, p: Uint8Array): Body {
  switch (h.type) {
    case K.NLMSG_ERROR:
      return decodeError(h, p);
    case K.NLMSG_DONE:
      return { kind: "done" };
    case K.NLMSG_OVERRUN:
      return { kind: "overrun" };
    case K.RTM_NEWLINK:
    case K.RTM_DELLINK:
      return decodeLink(h.type, p);
    case K.RTM_NEWADDR:
    case K.RTM_DELADDR:
      return decodeAddr(h.type, p);
    case K.RTM_NEWROUTE:
    case K.RTM_DELROUTE:
      return decodeRoute(h.type, p);
    case K.RTM_NEWPREFIX:
      return decodePrefix(p);
    case K.RTM_NEWNDUSEROPT:
      return decodeUserOpt(p);
    default:
      return { kind: "other", payload: p.slice() };
  }
}

/** Decodes every message of a datagram. Throws NetlinkDecodeError on malformed framing. */
export function decodeMessages(buf: Uint8Array): Message[] {
  return splitMessages(buf).map(({ header, payload }) => ({ header, body: decodeBody(header, payload) }));
}
