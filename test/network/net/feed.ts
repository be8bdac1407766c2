/** Builders for decoded rtnetlink messages, to feed the pure machines in tests. */
import * as K from "../../../src/network/netlink/constants.ts";
import type { AddrMsg, LinkMsg, PrefixMsg, RouteMsg, UserOptMsg } from "../../../src/network/netlink/message.ts";

export const IDX = 2;

export const link = (flags: number, o: Partial<LinkMsg> = {}): LinkMsg => ({
  kind: "link",
  op: "new",
  family: K.AF_UNSPEC,
  ifindex: IDX,
  flags,
  change: 0,
  name: "eth0",
  mac: "02:00:00:00:aa:01",
  mtu: 1500,
  operstate: flags & K.IFF_LOWER_UP ? K.IF_OPER_UP : K.IF_OPER_DOWN,
  carrier: (flags & K.IFF_LOWER_UP) !== 0,
  linkKind: undefined,
  attrs: [],
  ...o,
});
export const UP = K.IFF_UP | K.IFF_BROADCAST | K.IFF_MULTICAST;
export const UP_CARRIER = UP | K.IFF_LOWER_UP | K.IFF_RUNNING;

export const addr = (address: string, flags: number, o: Partial<AddrMsg> = {}): AddrMsg => ({
  kind: "addr",
  op: "new",
  family: K.AF_INET6,
  prefixlen: 64,
  flags,
  scope: address.startsWith("fe80:") ? K.RT_SCOPE_LINK : K.RT_SCOPE_UNIVERSE,
  ifindex: IDX,
  address,
  cacheinfo: { preferred: 14400, valid: 86400, cstamp: 0, tstamp: 0 },
  attrs: [],
  ...o,
});

export const defaultRoute = (gateway: string, o: Partial<RouteMsg> = {}): RouteMsg => ({
  kind: "route",
  op: "new",
  family: K.AF_INET6,
  dstLen: 0,
  table: K.RT_TABLE_MAIN,
  protocol: K.RTPROT_RA,
  scope: 0,
  type: K.RTN_UNICAST,
  dst: undefined,
  gateway,
  oif: IDX,
  priority: 1024,
  pref: 0,
  expiresS: 30,
  attrs: [],
  ...o,
});

export const prefix = (p: string, autonomous: boolean, o: Partial<PrefixMsg> = {}): PrefixMsg => ({
  kind: "prefix",
  family: K.AF_INET6,
  ifindex: IDX,
  prefixlen: 64,
  flags: K.ND_PREFIX_FLAG_ONLINK | (autonomous ? K.ND_PREFIX_FLAG_AUTONOMOUS : 0),
  prefix: p,
  preferred: 14400,
  valid: 86400,
  attrs: [],
  ...o,
});

export const rdnss = (servers: string[], lifetime: number, o: Partial<UserOptMsg> = {}): UserOptMsg => ({
  kind: "useropt",
  family: K.AF_INET6,
  ifindex: IDX,
  icmpType: K.ICMPV6_ND_ROUTER_ADVERT,
  options: [{ type: K.ND_OPT_RDNSS, lifetime, servers }],
  source: "fe80::1",
  attrs: [],
  ...o,
});
export const dnssl = (domains: string[], lifetime: number): UserOptMsg => ({
  kind: "useropt",
  family: K.AF_INET6,
  ifindex: IDX,
  icmpType: K.ICMPV6_ND_ROUTER_ADVERT,
  options: [{ type: K.ND_OPT_DNSSL, lifetime, domains }],
  source: "fe80::1",
  attrs: [],
});
