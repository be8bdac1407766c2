/**
 * The SNTP wire format (RFC 4330 section 4): a 48-byte header, no extensions. Pure:
 * encodes the client request and decodes a server answer into numbers; the sanity
 * checks on the decoded answer live in sntp-check.ts.
 *
 * Timestamps are 64-bit NTP fixed point (seconds since 1900 + 32-bit fraction). Era
 * rule (RFC 4330 section 3): with the top bit of the seconds set the time lies in
 * 1968-2036, with it clear in 2036-2104; so a machine whose RTC says 2001 or 2038
 * decodes the server's time correctly without trusting its own clock.
 */
export const NTP_PACKET_BYTES = 48;
export { NTP_PORT } from "../../config/ntp-servers.ts";
/** Seconds from 1900-01-01 (NTP epoch) to 1970-01-01 (Unix epoch). */
export const NTP_UNIX_OFFSET_S = 2_208_988_800;
const ERA_SECONDS = 2 ** 32;

export const MODE_CLIENT = 3;
export const MODE_SERVER = 4;
export const LEAP_ALARM = 3;

export interface NtpPacket {
  readonly leap: number;
  readonly version: number;
  readonly mode: number;
  readonly stratum: number;
  readonly poll: number;
  readonly precision: number;
  /** Root delay and dispersion in ms. */
  readonly rootDelayMs: number;
  readonly rootDispersionMs: number;
  /** The 4 reference-id bytes; for stratum 0 (kiss-o'-death) an ASCII kiss code. */
  readonly refId: Uint8Array;
  /** The four timestamps as raw 64-bit NTP values (bigint: compared bit-exactly for the origin check). */
  readonly reference: bigint;
  readonly origin: bigint;
  readonly receive: bigint;
  readonly transmit: bigint;
}

/** Unix ms (may carry a fraction) -> 64-bit NTP timestamp, era by the RFC 4330 rule. */
export function unixMsToNtp(ms: number): bigint {
  const totalS = Math.floor(ms / 1000);
  const fracMs = ms - totalS * 1000;
  const ntpS = (totalS + NTP_UNIX_OFFSET_S) % ERA_SECONDS;
  const frac = Math.min(ERA_SECONDS - 1, Math.round((fracMs / 1000) * ERA_SECONDS));
  return (BigInt(ntpS) << 32n) | BigInt(frac);
}

/** 64-bit NTP timestamp -> Unix ms (float). */
export function ntpToUnixMs(ts: bigint): number {
  const s = Number(ts >> 32n);
  const frac = Number(ts & 0xffff_ffffn);
  const era = s >= 0x8000_0000 ? 0 : 1;
  return (s + era * ERA_SECONDS - NTP_UNIX_OFFSET_S) * 1000 + (frac / ERA_SECONDS) * 1000;
}

/** The client request: LI 0, VN 4, mode 3, everything zero but the transmit timestamp (RFC 4330 section 5). */
export function encodeRequest(transmit: bigint): Uint8Array {
  const b = new Uint8Array(NTP_PACKET_BYTES);
  const dv = new DataView(b.buffer);
  b[0] = (0 << 6) | (4 << 3) | MODE_CLIENT;
  dv.setBigUint64(40, transmit, false);
  return b;
}

/** NTP short format (16.16 seconds) -> ms. */
const shortToMs = (v: number): number => (v / 65536) * 1000;

export class NtpDecodeError extends Error {
  override readonly name = "NtpDecodeError";
}

/** Decodes a server answer; throws NtpDecodeError on a short datagram. Extension fields / MAC after byte 48 are ignored. */
export function decodePacket(bytes: Uint8Array): NtpPacket {
  if (bytes.byteLength < NTP_PACKET_BYTES) throw new NtpDecodeError(`NTP answer of ${bytes.byteLength} bytes, expected at least ${NTP_PACKET_BYTES}`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const b0 = bytes[0]!;
  return {
    leap: b0 >> 6,
    version: (b0 >> 3) & 7,
    mode: b0 & 7,
    stratum: bytes[1]!,
    poll: dv.getInt8(2),
    precision: dv.getInt8(3),
    rootDelayMs: shortToMs(dv.getUint32(4, false)),
    rootDispersionMs: shortToMs(dv.getUint32(8, false)),
    refId: bytes.slice(12, 16),
    reference: dv.getBigUint64(16, false),
    origin: dv.getBigUint64(24, false),
    receive: dv.getBigUint64(32, false),
    transmit: dv.getBigUint64(40, false),
  };
}

/** Encodes a server answer (used by the test stand-in and golden-byte tests). */
export function encodePacket(p: NtpPacket): Uint8Array {
  const b = new Uint8Array(NTP_PACKET_BYTES);
  const dv = new DataView(b.buffer);
  b[0] = ((p.leap & 3) << 6) | ((p.version & 7) << 3) | (p.mode & 7);
  b[1] = p.stratum;
  dv.setInt8(2, p.poll);
  dv.setInt8(3, p.precision);
  dv.setUint32(4, Math.round((p.rootDelayMs / 1000) * 65536), false);
  dv.setUint32(8, Math.round((p.rootDispersionMs / 1000) * 65536), false);
  b.set(p.refId.subarray(0, 4), 12);
  dv.setBigUint64(16, p.reference, false);
  dv.setBigUint64(24, p.origin, false);
  dv.setBigUint64(32, p.receive, false);
  dv.setBigUint64(40, p.transmit, false);
  return b;
}

/** The kiss code of a stratum-0 answer ("DENY", "RSTR", "RATE", ...), or the refid as text. */
export function kissCode(p: NtpPacket): string {
  return String.fromCharCode(...p.refId)
    .replace(/[^\x20-\x7e]/g, "?")
    .trim();
}
