/**
 * What `ipmitool lan print`, `fru` and `bmc info` print, read as data. ipmitool writes
 * one `Name : value` per line, names padded with blanks; continuation lines start with
 * ` : ` (an empty name) and belong to the line before; `fru` prints one block per FRU
 * device, each opened by `FRU Device Description : ...`. Pure.
 */

export interface IpmitoolField {
  readonly name: string;
  readonly value: string;
}

/** Every `Name : value` line in order; lines without ` : ` and continuations are left out. */
export function ipmitoolFields(text: string): IpmitoolField[] {
  const out: IpmitoolField[] = [];
  for (const line of text.split("\n")) {
    const at = line.indexOf(":");
    if (at < 0) continue;
    const name = line.slice(0, at).trim();
    if (name === "") continue;
    out.push({ name, value: line.slice(at + 1).trim() });
  }
  return out;
}

/** The first value of each name (later repeats are ignored). */
export function firstValues(fields: readonly IpmitoolField[]): ReadonlyMap<string, string> {
  const m = new Map<string, string>();
  for (const f of fields) if (!m.has(f.name)) m.set(f.name, f.value);
  return m;
}

/** `fru`'s blocks: one per `FRU Device Description` line, with the fields under it. */
export function fruBlocks(fields: readonly IpmitoolField[]): { readonly description: string; readonly fields: ReadonlyMap<string, string> }[] {
  const blocks: { description: string; fields: Map<string, string> }[] = [];
  for (const f of fields) {
    if (f.name === "FRU Device Description") {
      blocks.push({ description: f.value, fields: new Map() });
      continue;
    }
    const b = blocks.at(-1);
    if (b && !b.fields.has(f.name)) b.fields.set(f.name, f.value);
  }
  return blocks;
}
