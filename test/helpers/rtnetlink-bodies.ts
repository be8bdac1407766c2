/** Decoded rtnetlink bodies built by hand (a link, a global address, an RA default route), for the uplink tests. */
import type { Body } from "../../src/network/netlink/message.ts";

/** A link, up with carrier (IFF_UP|IFF_LOWER_UP, operstate up) or down without. */
export const linkBody = (ifindex: number, name: string, up = true): Body => ({
  kind: "link",
  op: "new",
  family: 0,
  ifindex,
  flags: up ? 0x11043 : 0x1003,
  change: 0,
  name,
  mac: undefined,
  mtu: 1500,
  operstate: up ? 6 : 2,
  carrier: up,
  linkKind: undefined,
  attrs: [],
});

/** A global IPv6 address /64 with IFA_* `flags` (0: usable). */
export const addrBody = (ifindex: number, address: string, flags = 0): Body => ({
  kind: "addr",
  op: "new",
  family: 10,
  prefixlen: 64,
  flags,
  scope: 0,
  ifindex,
  address,
  cacheinfo: undefined,
  attrs: [],
});

/** A default route from an RA in the main table via `gateway` out of `oif`, RTA_PREF `pref` (0 medium, 1 high, 3 low). */
export const defaultRouteBody = (oif: number, gateway: string, pref = 0): Body => ({
  kind: "route",
  op: "new",
  family: 10,
  dstLen: 0,
  table: 254,
  protocol: 9,
  scope: 0,
  type: 1,
  dst: undefined,
  gateway,
  oif,
  priority: 1024,
  pref,
  expiresS: 30,
  attrs: [],
});
