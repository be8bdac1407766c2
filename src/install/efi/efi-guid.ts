/**
 * EFI_GUID bytes <-> text (UEFI 2.10 Appendix A): the first three fields are stored
 * little-endian, the last 8 bytes as they are, so the text
 * bccfc23a-d699-4d91-bed2-0381f5f5b33d is the bytes 3ac2cfbc 99d6 914d bed2 0381f5f5b33d.
 * A GPT entry's unique partition GUID and an HD() node's signature are both in this
 * form. Text is lower case, as efivar prints it. Pure.
 */

export const GUID_BYTES = 16;
const GUID_RE = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const reversed = (b: Uint8Array): Uint8Array => Uint8Array.from(b).reverse();

/** The text form of 16 EFI_GUID bytes. */
export function guidText(b: Uint8Array): string {
  if (b.length !== GUID_BYTES) throw new RangeError(`an EFI_GUID has ${GUID_BYTES} bytes, got ${b.length}`);
  return [hex(reversed(b.subarray(0, 4))), hex(reversed(b.subarray(4, 6))), hex(reversed(b.subarray(6, 8))), hex(b.subarray(8, 10)), hex(b.subarray(10))].join("-");
}

/** The 16 EFI_GUID bytes of a text GUID (8-4-4-4-12 hex digits). */
export function guidBytes(text: string): Uint8Array {
  const m = GUID_RE.exec(text);
  if (!m) throw new RangeError(`${JSON.stringify(text)} is not a GUID (8-4-4-4-12 hex digits)`);
  const part = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
  const out = new Uint8Array(GUID_BYTES);
  out.set(reversed(part(m[1]!)), 0);
  out.set(reversed(part(m[2]!)), 4);
  out.set(reversed(part(m[3]!)), 6);
  out.set(part(m[4]!), 8);
  out.set(part(m[5]!), 10);
  return out;
}
