/** Addresses in a switch port's /64. Pure. */
import ipaddr from "ipaddr.js";

/** The SLAAC address (RFC 4862 + RFC 4291 modified EUI-64) a MAC gets in a /64. */
export function eui64Address(prefix: string, mac: string): string {
  const [net, len] = ipaddr.parseCIDR(prefix);
  if (net.kind() !== "ipv6" || len !== 64) throw new Error(`${prefix}: expected an IPv6 /64 prefix`);
  const m = mac.split(/[:-]/).map((h) => Number.parseInt(h, 16));
  if (m.length !== 6 || m.some((b) => !(b >= 0 && b <= 255)) || !/^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i.test(mac)) {
    throw new Error(`${mac}: expected a MAC like 52:54:00:12:34:56`);
  }
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = m;
  const bytes = (net as ipaddr.IPv6).toByteArray().slice(0, 8).concat([a ^ 0x02, b, c, 0xff, 0xfe, d, e, f]);
  return ipaddr.fromByteArray(bytes).toString();
}

/** The router's own address on a port: the prefix's first address (<prefix>::1). */
export function routerAddress(prefix: string): string {
  const [net, len] = ipaddr.parseCIDR(prefix);
  if (net.kind() !== "ipv6" || len !== 64) throw new Error(`${prefix}: expected an IPv6 /64 (one per switch port)`);
  const b = net.toByteArray().slice(0, 8).concat([0, 0, 0, 0, 0, 0, 0, 1]);
  return ipaddr.fromByteArray(b).toString();
}
