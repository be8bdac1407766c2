/**
 * An IPMI FRU image (Platform Management FRU Information Storage Definition v1.0): the
 * common header, then the chassis, board and product info areas, each of 8-byte
 * multiples with a zero checksum; strings are 8-bit ASCII type/length bytes (0xC0 | n).
 * The lab's BMC serves it to `ipmitool fru`. Pure.
 */

export interface FruData {
  readonly chassisType: number;
  readonly chassisPartNumber: string;
  readonly chassisSerial: string;
  /** Minutes since 1996-01-01 00:00 UTC. */
  readonly boardMfgMinutes: number;
  readonly boardMfg: string;
  readonly boardProduct: string;
  readonly boardSerial: string;
  readonly boardPartNumber: string;
  readonly productManufacturer: string;
  readonly productName: string;
  readonly productPartNumber: string;
  readonly productVersion: string;
  readonly productSerial: string;
  readonly productAssetTag: string;
}

function field(s: string): number[] {
  const b = [...Buffer.from(s, "latin1")];
  if (b.length > 63) throw new Error(`FRU field ${JSON.stringify(s)}: at most 63 bytes`);
  return [0xc0 | b.length, ...b];
}

const checksum = (bytes: readonly number[]): number => -bytes.reduce((a, b) => a + b, 0) & 0xff;

/** One info area: version 1, its length in 8-byte units, the body, end marker 0xC1, padding, checksum. */
function area(body: readonly number[]): number[] {
  const data = [...body, 0xc1];
  while ((2 + data.length + 1) % 8 !== 0) data.push(0);
  const out = [0x01, (2 + data.length + 1) / 8, ...data];
  return [...out, checksum(out)];
}

export function fruImage(d: FruData): Uint8Array {
  const chassis = area([d.chassisType, ...field(d.chassisPartNumber), ...field(d.chassisSerial)]);
  const m = d.boardMfgMinutes;
  const board = area([
    0x00,
    m & 0xff,
    (m >> 8) & 0xff,
    (m >> 16) & 0xff,
    ...field(d.boardMfg),
    ...field(d.boardProduct),
    ...field(d.boardSerial),
    ...field(d.boardPartNumber),
    ...field(""),
  ]);
  const product = area([
    0x00,
    ...field(d.productManufacturer),
    ...field(d.productName),
    ...field(d.productPartNumber),
    ...field(d.productVersion),
    ...field(d.productSerial),
    ...field(d.productAssetTag),
    ...field(""),
  ]);
  const header = [0x01, 0x00, 1, 1 + chassis.length / 8, 1 + (chassis.length + board.length) / 8, 0x00, 0x00];
  return new Uint8Array([...header, checksum(header), ...chassis, ...board, ...product]);
}
