/** Byte strings <-> text for IPv6 addresses and MACs (RFC 5952 compressed form). */
import ipaddr from "ipaddr.js";
import { NetlinkDecodeError } from "./cursor.ts";

export function ipv6Text(b: Uint8Array, what: string): string {
  if (b.byteLength !== 16) throw new NetlinkDecodeError(`${what}: expected a 16-byte IPv6 address, got ${b.byteLength} bytes`);
  return ipaddr.fromByteArray([...b]).toString();
}

export function ipv6Bytes(text: string): Uint8Array {
  return new Uint8Array(ipaddr.IPv6.parse(text).toByteArray());
}
