/** Addresses in a switch port's /64. Pure. */
import ipaddr from "ipaddr.js";

/** The modified EUI-64 address (RFC 4291 appendix A) a MAC gets in a /64. */
export function eui64(prefix: string, mac: string): string {
  const p = ipaddr.IPv6.parse(prefix).toByteArray().slice(0, 8);
  const b = mac.split(":").map((x) => parseInt(x, 16));
  const id = [(b[0] ?? 0) ^ 2, b[1] ?? 0, b[2] ?? 0, 0xff, 0xfe, b[3] ?? 0, b[4] ?? 0, b[5] ?? 0];
  return ipaddr.fromByteArray([...p, ...id]).toString();
}

/** The SLAAC address (RFC 4862 + RFC 4291 modified EUI-64) a MAC gets in a /64, both checked first. */
export function eui64Address(prefix: string, mac: string): string {
  const [net, len] = ipaddr.parseCIDR(prefix);
  if (net.kind() !== "ipv6" || len !== 64) throw new Error(`${prefix}: expected an IPv6 /64 prefix`);
  if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(mac)) {
    throw new Error(`${mac}: expected a MAC like 52:54:00:12:34:56`);
  }
  return eui64(net.toString(), mac);
}

/** The router's own address on a port: the prefix's first address (<prefix>::1). */
export function routerAddress(prefix: string): string {
  const [net, len] = ipaddr.parseCIDR(prefix);
  if (net.kind() !== "ipv6" || len !== 64) throw new Error(`${prefix}: expected an IPv6 /64 (one per switch port)`);
  const b = net.toByteArray().slice(0, 8).concat([0, 0, 0, 0, 0, 0, 0, 1]);
  return ipaddr.fromByteArray(b).toString();
}
