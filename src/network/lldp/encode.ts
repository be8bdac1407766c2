/**
 * Our own LLDP frame, as metal-hammer sends it while it waits for installation
 * (github.com/metal-stack/go-lldpd pkg/lldp/server.go createLLDPMessage, started by
 * metal-stack/metal-hammer@ec148e3 cmd/network/interfaces.go:36 UpAllInterfaces):
 * Chassis ID = the NIC's MAC (subtype 4), Port ID = the interface name (subtype 5),
 * TTL, Port Description = the interface name, System Name = the machine UUID, System
 * Description = a line about the agent; then End Of LLDPDU. Sent to the nearest-bridge
 * group address from the NIC's MAC. Pure.
 */
import { macBytes } from "../../platform/ids/mac.ts";
import {
  CHASSIS_ID_MAC,
  ETH_P_LLDP,
  LLDP_MULTICAST,
  PORT_ID_INTERFACE_NAME,
  TLV_CHASSIS_ID,
  TLV_END,
  TLV_PORT_DESCRIPTION,
  TLV_PORT_ID,
  TLV_SYSTEM_DESCRIPTION,
  TLV_SYSTEM_NAME,
  TLV_TTL,
} from "./lldpdu.ts";

export interface Announcement {
  /** The NIC's MAC, aa:bb:cc:dd:ee:ff. */
  readonly mac: string;
  readonly ifname: string;
  readonly systemName: string;
  readonly systemDescription: string;
  readonly ttlSeconds: number;
}

function tlv(type: number, value: Uint8Array): Uint8Array {
  if (value.byteLength > 511) throw new Error(`LLDP TLV type ${type}: ${value.byteLength} bytes do not fit the 9-bit length`);
  const out = new Uint8Array(2 + value.byteLength);
  out[0] = (type << 1) | (value.byteLength >> 8);
  out[1] = value.byteLength & 0xff;
  out.set(value, 2);
  return out;
}

const utf8 = (s: string, max: number): Uint8Array => {
  const b = new TextEncoder().encode(s);
  return b.byteLength > max ? b.subarray(0, max) : b;
};

export function encodeLldpdu(a: Announcement): Uint8Array {
  const mac = macBytes(a.mac);
  const ttl = Math.max(0, Math.min(0xffff, Math.round(a.ttlSeconds)));
  const name = utf8(a.ifname, 255);
  const parts = [
    tlv(TLV_CHASSIS_ID, new Uint8Array([CHASSIS_ID_MAC, ...mac])),
    tlv(TLV_PORT_ID, new Uint8Array([PORT_ID_INTERFACE_NAME, ...name])),
    tlv(TLV_TTL, new Uint8Array([ttl >> 8, ttl & 0xff])),
    tlv(TLV_PORT_DESCRIPTION, name),
    tlv(TLV_SYSTEM_NAME, utf8(a.systemName, 255)),
    tlv(TLV_SYSTEM_DESCRIPTION, utf8(a.systemDescription, 255)),
    tlv(TLV_END, new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out;
}

/** The whole Ethernet frame, padded to the 60-byte minimum (without FCS). */
export function encodeLldpFrame(a: Announcement): Uint8Array {
  const du = encodeLldpdu(a);
  const frame = new Uint8Array(Math.max(60, 14 + du.byteLength));
  frame.set(LLDP_MULTICAST, 0);
  frame.set(macBytes(a.mac), 6);
  frame[12] = ETH_P_LLDP >> 8;
  frame[13] = ETH_P_LLDP & 0xff;
  frame.set(du, 14);
  return frame;
}
