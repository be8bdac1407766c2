/**
 * Sends our own Router Solicitation from :: through an AF_PACKET socket
 * (FIELD-NOTES §8: raw ICMPv6 sockets fail until link-local DAD is done). The
 * socket is never bound (a bound packet socket latches ENETDOWN while the link is
 * down); it is opened, used once and closed.
 */
import { AF_PACKET } from "../netlink/constants.ts";
import { errnoName } from "../sys/errno.ts";
import { libc, SOCK_CLOEXEC, SOCK_DGRAM } from "../sys/libc.ts";
import { ALL_ROUTERS_MAC, routerSolicitationPacket } from "./rs-frame.ts";

const ETH_P_IPV6 = 0x86dd;
const htons = (v: number) => ((v & 0xff) << 8) | (v >> 8);

/** Returns undefined on success, else the errno name (the caller logs; never fatal). */
export function sendRouterSolicitation(ifindex: number): string | undefined {
  const c = libc();
  const fd = c.socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IPV6));
  if (fd < 0) return errnoName(c.errno());
  try {
    const sll = new Uint8Array(20); // struct sockaddr_ll
    const dv = new DataView(sll.buffer);
    dv.setUint16(0, AF_PACKET, true);
    dv.setUint16(2, htons(ETH_P_IPV6), true);
    dv.setInt32(4, ifindex, true);
    sll[11] = 6; // sll_halen
    sll.set(ALL_ROUTERS_MAC, 12);
    const pkt = routerSolicitationPacket();
    const n = c.sendto(fd, pkt, pkt.byteLength, 0, sll, sll.byteLength);
    return n < 0 ? errnoName(c.errno()) : undefined;
  } finally {
    c.close(fd);
  }
}
