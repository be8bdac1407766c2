/** The LLDP frames recorded from Debian's lldpd (test/fixtures/lldp/, capture.ts), and a TLV builder for hand-made frames. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface LldpFixture {
  readonly what: string;
  readonly source: string;
  readonly lldpcli: readonly string[];
  readonly switchMac: string;
  readonly frame: string;
}

export function fixture(name: string): { meta: LldpFixture; bytes: Uint8Array } {
  const meta = JSON.parse(readFileSync(join(import.meta.dir, "../../fixtures/lldp", `${name}.json`), "utf8")) as LldpFixture;
  return { meta, bytes: Uint8Array.from(Buffer.from(meta.frame, "hex")) };
}

/** One TLV: 7-bit type, 9-bit length (given, or the value's), value. */
export function tlv(type: number, value: readonly number[] | Uint8Array | string, len?: number): number[] {
  const v = typeof value === "string" ? [...new TextEncoder().encode(value)] : [...value];
  const l = len ?? v.length;
  return [(type << 1) | (l >> 8), l & 0xff, ...v];
}

export const ETH = [0x01, 0x80, 0xc2, 0, 0, 0x0e, 0x02, 0x11, 0x22, 0x33, 0x44, 0x01, 0x88, 0xcc];
export const CHASSIS = tlv(1, [4, 0x02, 0x11, 0x22, 0x33, 0x44, 0x01]);
export const PORT = tlv(2, [3, 0x02, 0x11, 0x22, 0x33, 0x44, 0x01]);
export const TTL = tlv(3, [0, 120]);
export const END = [0, 0];

export const frame = (...tlvs: number[][]): Uint8Array => Uint8Array.from([...ETH, ...tlvs.flat()]);
