/**
 * Sends our own Router Solicitation from :: through an AF_PACKET socket
 * (docs/network.md: raw ICMPv6 sockets fail until link-local DAD is done). The
 * socket is never bound (a bound packet socket latches ENETDOWN while the link is
 * down); it is opened, used once and closed.
 */
import { errnoName } from "../../platform/sys/errno.ts";
import { AF_PACKET, libc, SOCK_CLOEXEC, SOCK_DGRAM } from "../../platform/sys/libc.ts";
import { htons, sockaddrLl } from "../../platform/sys/packet-socket.ts";
import { ALL_ROUTERS_MAC, routerSolicitationPacket } from "./rs-frame.ts";

const ETH_P_IPV6 = 0x86dd;

/** Returns undefined on success, else the errno name (the caller logs; never fatal). */
export function sendRouterSolicitation(ifindex: number): string | undefined {
  const c = libc();
  const fd = c.socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IPV6));
  if (fd < 0) return errnoName(c.errno());
  try {
    const sll = sockaddrLl(ifindex, ETH_P_IPV6, ALL_ROUTERS_MAC);
    const pkt = routerSolicitationPacket();
    const n = c.sendto(fd, pkt, pkt.byteLength, 0, sll, sll.byteLength);
    return n < 0 ? errnoName(c.errno()) : undefined;
  } finally {
    c.close(fd);
  }
}
