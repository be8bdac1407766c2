/**
 * A Router Solicitation from the unspecified address (RFC 4861 §4.1, §6.3.7: no
 * source link-layer option when the source is ::), as the IPv6 packet an AF_PACKET
 * SOCK_DGRAM socket sends to 33:33:00:00:00:02. Pure; the checksum covers the
 * pseudo-header (RFC 8200 §8.1).
 */
import { ICMPV6_ND_ROUTER_SOLICIT } from "../netlink/constants.ts";

export const ALL_ROUTERS_MAC = new Uint8Array([0x33, 0x33, 0, 0, 0, 2]);
const ALL_ROUTERS = new Uint8Array([0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
const IPPROTO_ICMPV6 = 58;

export function icmpv6Checksum(src: Uint8Array, dst: Uint8Array, icmp: Uint8Array): number {
  let sum = 0;
  const add16 = (b: Uint8Array) => {
    for (let i = 0; i < b.byteLength; i += 2) sum += ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
  };
  add16(src);
  add16(dst);
  sum += icmp.byteLength >>> 16;
  sum += icmp.byteLength & 0xffff;
  sum += IPPROTO_ICMPV6;
  add16(icmp);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

export function routerSolicitationPacket(): Uint8Array {
  const icmp = new Uint8Array(8);
  icmp[0] = ICMPV6_ND_ROUTER_SOLICIT;
  const src = new Uint8Array(16);
  const ck = icmpv6Checksum(src, ALL_ROUTERS, icmp);
  icmp[2] = ck >> 8;
  icmp[3] = ck & 0xff;
  const pkt = new Uint8Array(40 + icmp.byteLength);
  pkt[0] = 0x60; // version 6, traffic class 0, flow label 0
  pkt[4] = 0;
  pkt[5] = icmp.byteLength; // payload length
  pkt[6] = IPPROTO_ICMPV6;
  pkt[7] = 255; // hop limit: ND requires 255
  pkt.set(src, 8);
  pkt.set(ALL_ROUTERS, 24);
  pkt.set(icmp, 40);
  return pkt;
}
