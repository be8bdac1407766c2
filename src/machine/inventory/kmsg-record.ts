/**
 * One record of /dev/kmsg, as one read(2) returns it (the kernel's
 * Documentation/ABI/testing/dev-kmsg): `prio,seq,usec,flags[,more];message\n`, then
 * dictionary lines that start with a space (` SUBSYSTEM=acpi\n`). prio is facility × 8 +
 * level; flags is `-`, or `c` for a continuation; fields may be added before the `;`.
 * Non-printable bytes of the message arrive escaped (`\x0a`). Pure.
 */

export interface KmsgRecord {
  readonly facility: number;
  readonly level: number;
  readonly seq: number;
  /** Microseconds since boot. */
  readonly usec: number;
  readonly flags: string;
  readonly message: string;
}

const HEADER = /^(\d+),(\d+),(\d+),([^,;]*)(?:,[^;]*)?;/;

/** The record, or undefined when the text is not one (the header is missing or malformed). */
export function parseKmsgRecord(text: string): KmsgRecord | undefined {
  const h = HEADER.exec(text);
  if (!h) return undefined;
  const prio = Number(h[1]);
  const seq = Number(h[2]);
  const usec = Number(h[3]);
  if (!Number.isSafeInteger(prio) || !Number.isSafeInteger(seq) || !Number.isSafeInteger(usec)) return undefined;
  const rest = text.slice(h[0].length);
  const end = rest.indexOf("\n");
  return { facility: Math.floor(prio / 8), level: prio % 8, seq, usec, flags: h[4] ?? "", message: end < 0 ? rest : rest.slice(0, end) };
}
