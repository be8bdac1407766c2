/** The LLDP frames recorded from Debian's lldpd (test/fixtures/lldp/, capture.ts), and a TLV builder for hand-made frames. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hexText } from "../../../src/network/lldp/text.ts";

export interface LldpFixture {
  readonly what: string;
  readonly source: string;
  readonly lldpcli: readonly string[];
  readonly switchMac: string;
  readonly frame: string;
}

const FIXTURES = join(import.meta.dir, "../../fixtures/lldp");

export function fixture(name: string): { meta: LldpFixture; bytes: Uint8Array } {
  const meta = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as LldpFixture;
  return { meta, bytes: Uint8Array.from(Buffer.from(meta.frame, "hex")) };
}

/** Writes a recorded frame as test/fixtures/lldp/<name>.json (what the recorders capture.ts and record-fabric.ts save); its path. */
export function writeFixture(name: string, meta: Omit<LldpFixture, "frame">, frame: Uint8Array): string {
  const file = join(FIXTURES, `${name}.json`);
  const f: LldpFixture = { what: meta.what, source: meta.source, lldpcli: meta.lldpcli, switchMac: meta.switchMac, frame: hexText(frame) };
  writeFileSync(file, JSON.stringify(f, null, 1) + "\n");
  return file;
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
