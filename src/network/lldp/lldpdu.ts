/**
 * The LLDP decoder (IEEE 802.1AB-2016, clause 8): an Ethernet frame with ethertype
 * 0x88cc carries one LLDPDU, a sequence of TLVs (7-bit type, 9-bit length, value).
 * The first three TLVs must be Chassis ID, Port ID and Time To Live (8.2); End Of
 * LLDPDU (type 0, length 0) ends it, anything after it is padding. Every bound is
 * checked; a malformed frame throws one LldpDecodeError whose `reason` names the
 * rule and whose message names the TLV and the offset. Unknown TLV types (9..126)
 * and organizationally specific TLVs (127) are kept as raw bytes. Every string is
 * wire text, escaped by text.ts before it can reach a log line. Pure.
 */
import ipaddr from "ipaddr.js";
import { macText } from "../../platform/ids/mac.ts";
import { hexText, wireText } from "./text.ts";

export const ETH_P_LLDP = 0x88cc;
/** Nearest-bridge group address (802.1AB 7.1): what switches send to and what we join. */
export const LLDP_MULTICAST = new Uint8Array([0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e]);

export const TLV_END = 0;
export const TLV_CHASSIS_ID = 1;
export const TLV_PORT_ID = 2;
export const TLV_TTL = 3;
export const TLV_PORT_DESCRIPTION = 4;
export const TLV_SYSTEM_NAME = 5;
export const TLV_SYSTEM_DESCRIPTION = 6;
export const TLV_SYSTEM_CAPABILITIES = 7;
export const TLV_MANAGEMENT_ADDRESS = 8;
export const TLV_ORG_SPECIFIC = 127;

export const TLV_NAMES: Readonly<Record<number, string>> = {
  0: "End Of LLDPDU",
  1: "Chassis ID",
  2: "Port ID",
  3: "Time To Live",
  4: "Port Description",
  5: "System Name",
  6: "System Description",
  7: "System Capabilities",
  8: "Management Address",
  127: "Organizationally Specific",
};
const tlvName = (t: number): string => TLV_NAMES[t] ?? `type ${t}`;

/** Chassis ID subtypes (802.1AB 8.5.2.2). */
export const CHASSIS_ID_MAC = 4;
export const CHASSIS_ID_NETWORK_ADDRESS = 5;
/** Port ID subtypes (802.1AB 8.5.3.2). */
export const PORT_ID_INTERFACE_ALIAS = 1;
export const PORT_ID_MAC = 3;
export const PORT_ID_NETWORK_ADDRESS = 4;
export const PORT_ID_INTERFACE_NAME = 5;
export const PORT_ID_AGENT_CIRCUIT_ID = 6;
export const PORT_ID_LOCAL = 7;

/** IANA address family numbers used in LLDP network addresses. */
const AF_IPV4 = 1;
const AF_IPV6 = 2;
const AF_802 = 6;

export type LldpDecodeReason =
  | "truncated_ethernet"
  | "not_lldp"
  | "truncated_tlv"
  | "missing_chassis_id"
  | "missing_port_id"
  | "missing_ttl"
  | "bad_length"
  | "bad_value"
  | "duplicate_tlv";

export class LldpDecodeError extends Error {
  override readonly name = "LldpDecodeError";
  constructor(
    readonly reason: LldpDecodeReason,
    /** Byte offset in the frame (or LLDPDU) where the problem is. */
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export interface LldpId {
  readonly subtype: number;
  /** Display form: a MAC as aa:bb:.., an address as text, names as escaped wire text, opaque ids as hex. */
  readonly value: string;
  readonly raw: Uint8Array;
}

export interface ManagementAddress {
  /** IANA address family (1 IPv4, 2 IPv6, 6 802 MAC, ...). */
  readonly family: number;
  readonly address: string;
  /** Interface numbering subtype (1 unknown, 2 ifIndex, 3 system port number) and the number. */
  readonly ifSubtype: number;
  readonly ifNumber: number;
  readonly oid: Uint8Array;
}

export interface OrgSpecific {
  readonly oui: string;
  readonly subtype: number;
  readonly info: Uint8Array;
}

export interface Lldpdu {
  readonly chassisId: LldpId;
  readonly portId: LldpId;
  /** Seconds; 0 is a shutdown LLDPDU (forget this neighbour now). */
  readonly ttl: number;
  readonly portDescription?: string;
  readonly systemName?: string;
  readonly systemDescription?: string;
  readonly capabilities?: { readonly system: number; readonly enabled: number };
  readonly managementAddresses: readonly ManagementAddress[];
  readonly orgSpecific: readonly OrgSpecific[];
  /** TLVs of reserved types (9..126), kept as they came. */
  readonly unknown: readonly { readonly type: number; readonly value: Uint8Array }[];
  /** Whether an End Of LLDPDU TLV ended it (a PDU that simply ends at the frame's end is accepted). */
  readonly endTlv: boolean;
}

export interface LldpFrame {
  readonly dst: string;
  readonly src: string;
  /** 802.1Q VLAN id when the frame arrived tagged. */
  readonly vlan?: number;
  readonly du: Lldpdu;
}

interface Tlv {
  readonly type: number;
  readonly offset: number;
  readonly value: Uint8Array;
}

function fail(reason: LldpDecodeReason, offset: number, message: string): never {
  throw new LldpDecodeError(reason, offset, message);
}

/** The TLVs up to End (or the end of the bytes), every length checked against what is left. */
function splitTlvs(buf: Uint8Array, base: number): { tlvs: Tlv[]; endTlv: boolean; stop: number } {
  const tlvs: Tlv[] = [];
  let off = 0;
  while (off < buf.byteLength) {
    if (buf.byteLength - off < 2) fail("truncated_tlv", base + off, `LLDP TLV header at offset ${base + off}: needs 2 bytes, 1 left`);
    const hdr = ((buf[off] ?? 0) << 8) | (buf[off + 1] ?? 0);
    const type = hdr >> 9;
    const len = hdr & 0x1ff;
    const start = off + 2;
    if (start + len > buf.byteLength) fail("truncated_tlv", base + off, `LLDP ${tlvName(type)} TLV at offset ${base + off} claims ${len} bytes, ${buf.byteLength - start} left`);
    if (type === TLV_END) {
      if (len !== 0) fail("bad_length", base + off, `LLDP End Of LLDPDU TLV at offset ${base + off} has length ${len}, expected 0`);
      return { tlvs, endTlv: true, stop: base + off };
    }
    tlvs.push({ type, offset: base + off, value: buf.subarray(start, start + len) });
    off = start + len;
  }
  return { tlvs, endTlv: false, stop: base + off };
}

function networkAddress(family: number, bytes: Uint8Array, what: string, offset: number): string {
  const want = family === AF_IPV4 ? 4 : family === AF_IPV6 ? 16 : family === AF_802 ? 6 : undefined;
  if (want !== undefined && bytes.byteLength !== want)
    fail("bad_value", offset, `${what} at offset ${offset}: address family ${family} needs ${want} bytes, has ${bytes.byteLength}`);
  if (family === AF_IPV4 || family === AF_IPV6) return ipaddr.fromByteArray(Array.from(bytes)).toString();
  if (family === AF_802) return macText(bytes);
  return `family ${family}: ${hexText(bytes)}`;
}

/** Chassis ID and Port ID: subtype byte + 1..255 bytes of id (8.5.2, 8.5.3). */
function decodeId(t: Tlv, kind: "chassis" | "port"): LldpId {
  const what = `LLDP ${tlvName(t.type)} TLV`;
  if (t.value.byteLength < 2 || t.value.byteLength > 256) fail("bad_length", t.offset, `${what} at offset ${t.offset} has length ${t.value.byteLength}, expected 2..256`);
  const subtype = t.value[0] ?? 0;
  const raw = t.value.slice(1);
  const macSubtype = kind === "chassis" ? CHASSIS_ID_MAC : PORT_ID_MAC;
  const addrSubtype = kind === "chassis" ? CHASSIS_ID_NETWORK_ADDRESS : PORT_ID_NETWORK_ADDRESS;
  let value: string;
  if (subtype === macSubtype) {
    if (raw.byteLength !== 6) fail("bad_value", t.offset, `${what} at offset ${t.offset}: subtype ${subtype} (MAC address) has ${raw.byteLength} bytes, expected 6`);
    value = macText(raw);
  } else if (subtype === addrSubtype) {
    if (raw.byteLength < 2) fail("bad_value", t.offset, `${what} at offset ${t.offset}: subtype ${subtype} (network address) has no address after the family byte`);
    value = networkAddress(raw[0] ?? 0, raw.subarray(1), what, t.offset);
  } else if (subtype >= 1 && subtype <= 7 && !(kind === "port" && subtype === PORT_ID_AGENT_CIRCUIT_ID)) {
    value = wireText(raw);
  } else {
    // Reserved subtypes and the agent circuit id (RFC 3046, binary): opaque, shown as hex.
    value = hexText(raw);
  }
  return { subtype, value, raw };
}

function decodeManagementAddress(t: Tlv): ManagementAddress {
  const v = t.value;
  const what = `LLDP Management Address TLV at offset ${t.offset}`;
  if (v.byteLength < 9 || v.byteLength > 167) fail("bad_length", t.offset, `${what} has length ${v.byteLength}, expected 9..167`);
  const addrLen = v[0] ?? 0; // subtype byte + address
  if (addrLen < 2 || addrLen > 32) fail("bad_value", t.offset, `${what}: address string length ${addrLen}, expected 2..32`);
  const ifAt = 1 + addrLen;
  if (ifAt + 6 > v.byteLength) fail("bad_length", t.offset, `${what}: address string of ${addrLen} bytes leaves no room for the interface number and OID length`);
  const family = v[1] ?? 0;
  const address = networkAddress(family, v.subarray(2, ifAt), what, t.offset);
  const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const ifSubtype = v[ifAt] ?? 0;
  const ifNumber = dv.getUint32(ifAt + 1);
  const oidLen = v[ifAt + 5] ?? 0;
  const oidAt = ifAt + 6;
  if (oidLen > 128 || oidAt + oidLen !== v.byteLength) fail("bad_length", t.offset, `${what}: OID length ${oidLen} does not fill the remaining ${v.byteLength - oidAt} bytes`);
  return { family, address, ifSubtype, ifNumber, oid: v.slice(oidAt) };
}

const SINGLE = new Set([TLV_CHASSIS_ID, TLV_PORT_ID, TLV_TTL, TLV_PORT_DESCRIPTION, TLV_SYSTEM_NAME, TLV_SYSTEM_DESCRIPTION, TLV_SYSTEM_CAPABILITIES]);

/** Chassis ID, Port ID and Time To Live: the three TLVs every LLDPDU starts with, in this order (8.2). */
function decodeMandatory(tlvs: readonly Tlv[], stop: number): Pick<Lldpdu, "chassisId" | "portId" | "ttl"> {
  const [c, p, t] = tlvs;
  if (c?.type !== TLV_CHASSIS_ID)
    fail("missing_chassis_id", c?.offset ?? stop, `LLDPDU does not start with a Chassis ID TLV (found ${c ? `${tlvName(c.type)} at offset ${c.offset}` : "nothing"})`);
  if (p?.type !== TLV_PORT_ID)
    fail("missing_port_id", p?.offset ?? stop, `LLDPDU's second TLV is not a Port ID (found ${p ? `${tlvName(p.type)} at offset ${p.offset}` : "nothing"})`);
  if (t?.type !== TLV_TTL) fail("missing_ttl", t?.offset ?? stop, `LLDPDU's third TLV is not a Time To Live (found ${t ? `${tlvName(t.type)} at offset ${t.offset}` : "nothing"})`);
  if (t.value.byteLength !== 2) fail("bad_length", t.offset, `LLDP Time To Live TLV at offset ${t.offset} has length ${t.value.byteLength}, expected 2`);
  return { chassisId: decodeId(c, "chassis"), portId: decodeId(p, "port"), ttl: ((t.value[0] ?? 0) << 8) | (t.value[1] ?? 0) };
}

/** System Capabilities: the system's and the enabled capability bits, 2 bytes each (8.5.8). */
function decodeCapabilities(x: Tlv): NonNullable<Lldpdu["capabilities"]> {
  if (x.value.byteLength !== 4) fail("bad_length", x.offset, `LLDP System Capabilities TLV at offset ${x.offset} has length ${x.value.byteLength}, expected 4`);
  return { system: ((x.value[0] ?? 0) << 8) | (x.value[1] ?? 0), enabled: ((x.value[2] ?? 0) << 8) | (x.value[3] ?? 0) };
}

/** Organizationally Specific: OUI, subtype, the information string as it came (8.6). */
function decodeOrgSpecific(x: Tlv): OrgSpecific {
  if (x.value.byteLength < 4)
    fail("bad_length", x.offset, `LLDP Organizationally Specific TLV at offset ${x.offset} has length ${x.value.byteLength}, expected at least 4 (OUI + subtype)`);
  return { oui: macText(x.value.subarray(0, 3)), subtype: x.value[3] ?? 0, info: x.value.slice(4) };
}

/** The optional TLVs read so far: the one state addOptional folds each TLV into. */
interface Optional {
  /** The TLV types that may appear once (SINGLE) already read. */
  readonly seen: Set<number>;
  portDescription?: string;
  systemName?: string;
  systemDescription?: string;
  capabilities?: Lldpdu["capabilities"];
  readonly managementAddresses: ManagementAddress[];
  readonly orgSpecific: OrgSpecific[];
  readonly unknown: { type: number; value: Uint8Array }[];
}

/** One optional TLV into the state: a second of a TLV that may appear once is refused; a reserved type is kept as it came. */
function addOptional(o: Optional, x: Tlv): void {
  if (SINGLE.has(x.type)) {
    if (o.seen.has(x.type)) fail("duplicate_tlv", x.offset, `LLDPDU has a second ${tlvName(x.type)} TLV at offset ${x.offset}`);
    o.seen.add(x.type);
  }
  switch (x.type) {
    case TLV_PORT_DESCRIPTION:
      o.portDescription = wireText(x.value);
      break;
    case TLV_SYSTEM_NAME:
      o.systemName = wireText(x.value);
      break;
    case TLV_SYSTEM_DESCRIPTION:
      o.systemDescription = wireText(x.value);
      break;
    case TLV_SYSTEM_CAPABILITIES:
      o.capabilities = decodeCapabilities(x);
      break;
    case TLV_MANAGEMENT_ADDRESS:
      o.managementAddresses.push(decodeManagementAddress(x));
      break;
    case TLV_ORG_SPECIFIC:
      o.orgSpecific.push(decodeOrgSpecific(x));
      break;
    default:
      o.unknown.push({ type: x.type, value: x.value.slice() });
  }
}

/** Decodes an LLDPDU (the payload after the Ethernet header): the TLVs split, the mandatory three, then each optional one. `base` shifts the offsets in errors. */
export function decodeLldpdu(buf: Uint8Array, base = 0): Lldpdu {
  const { tlvs, endTlv, stop } = splitTlvs(buf, base);
  const head = decodeMandatory(tlvs, stop);
  const o: Optional = { seen: new Set([TLV_CHASSIS_ID, TLV_PORT_ID, TLV_TTL]), managementAddresses: [], orgSpecific: [], unknown: [] };
  for (const x of tlvs.slice(3)) addOptional(o, x);
  return {
    ...head,
    ...(o.portDescription !== undefined ? { portDescription: o.portDescription } : {}),
    ...(o.systemName !== undefined ? { systemName: o.systemName } : {}),
    ...(o.systemDescription !== undefined ? { systemDescription: o.systemDescription } : {}),
    ...(o.capabilities ? { capabilities: o.capabilities } : {}),
    managementAddresses: o.managementAddresses,
    orgSpecific: o.orgSpecific,
    unknown: o.unknown,
    endTlv,
  };
}

const ETH_P_8021Q = 0x8100;
const ETH_P_8021AD = 0x88a8;

/** Decodes a whole Ethernet frame (as an AF_PACKET SOCK_RAW socket reads it). */
export function decodeLldpFrame(frame: Uint8Array): LldpFrame {
  if (frame.byteLength < 14) fail("truncated_ethernet", 0, `Ethernet frame of ${frame.byteLength} bytes, expected at least 14`);
  const dv = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  let type = dv.getUint16(12);
  let at = 14;
  let vlan: number | undefined;
  if (type === ETH_P_8021Q || type === ETH_P_8021AD) {
    if (frame.byteLength < 18) fail("truncated_ethernet", 12, `VLAN-tagged Ethernet frame of ${frame.byteLength} bytes, expected at least 18`);
    vlan = dv.getUint16(14) & 0x0fff;
    type = dv.getUint16(16);
    at = 18;
  }
  if (type !== ETH_P_LLDP) fail("not_lldp", at - 2, `Ethernet type 0x${type.toString(16).padStart(4, "0")}, expected 0x88cc (LLDP)`);
  return {
    dst: macText(frame.subarray(0, 6)),
    src: macText(frame.subarray(6, 12)),
    ...(vlan !== undefined ? { vlan } : {}),
    du: decodeLldpdu(frame.subarray(at), at),
  };
}
