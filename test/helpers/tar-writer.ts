/**
 * Tar archives written byte by byte for tests: what GNU tar cannot be asked to write
 * (a pax name of 30 MB, a link chain, a size field that lies, data after the end
 * marker). POSIX.1-2001 ustar headers and pax extended headers ('x'), as GNU tar reads
 * them (GNU tar manual, "Basic Tar Format" and "Extended Header Keywords"). Pure.
 */

export const BLOCK = 512;

export interface TarEntry {
  /** The name in the ustar header (cut to 100 bytes); a longer one goes in a pax header too. */
  readonly name: string;
  /** '0' file, '1' hard link, '2' symlink, '5' directory (default '0'). */
  readonly type?: "0" | "1" | "2" | "5";
  readonly data?: Uint8Array | string;
  readonly linkname?: string;
  readonly mode?: number;
  /** The size written in the header when it is to lie (the data is written as given). */
  readonly sizeField?: number;
  /** pax records to put before the entry (path and linkpath are added when the names are long). */
  readonly pax?: Readonly<Record<string, string>>;
}

const enc = new TextEncoder();

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, "0")}\0`;
}

/** One 512-byte ustar header. */
export function ustarHeader(h: { name: string; type: string; size: number; mode?: number | undefined; linkname?: string | undefined }): Uint8Array {
  const b = new Uint8Array(BLOCK);
  const put = (at: number, width: number, s: string) => b.set(enc.encode(s).subarray(0, width), at);
  put(0, 100, h.name);
  put(100, 8, octal(h.mode ?? 0o644, 8));
  put(108, 8, octal(0, 8));
  put(116, 8, octal(0, 8));
  put(124, 12, octal(h.size, 12));
  put(136, 12, octal(0, 12));
  put(148, 8, "        ");
  put(156, 1, h.type);
  put(157, 100, h.linkname ?? "");
  put(257, 6, "ustar\0");
  put(263, 2, "00");
  let sum = 0;
  for (const x of b) sum += x;
  put(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return b;
}

/** A pax record: "<len> <key>=<value>\n", the length counting itself. */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = enc.encode(body).byteLength;
  let len = bodyBytes + 1;
  while (String(len).length + bodyBytes !== len) len = String(len).length + bodyBytes;
  return `${len}${body}`;
}

const padded = (data: Uint8Array): Uint8Array[] => {
  const rest = data.byteLength % BLOCK;
  return rest === 0 ? [data] : [data, new Uint8Array(BLOCK - rest)];
};

/** The blocks of one entry: its pax header when it needs one, its header, its data padded. */
export function tarEntry(e: TarEntry): Uint8Array[] {
  const data = typeof e.data === "string" ? enc.encode(e.data) : (e.data ?? new Uint8Array(0));
  const pax: Record<string, string> = { ...e.pax };
  if (enc.encode(e.name).byteLength > 100) pax.path = e.name;
  if (e.linkname !== undefined && enc.encode(e.linkname).byteLength > 100) pax.linkpath = e.linkname;
  const out: Uint8Array[] = [];
  const records = Object.entries(pax).map(([k, v]) => paxRecord(k, v));
  if (records.length > 0) {
    const body = enc.encode(records.join(""));
    out.push(ustarHeader({ name: "PaxHeaders/x", type: "x", size: body.byteLength }), ...padded(body));
  }
  out.push(ustarHeader({ name: e.name, type: e.type ?? "0", size: e.sizeField ?? data.byteLength, mode: e.mode, linkname: e.linkname }));
  if (data.byteLength > 0) out.push(...padded(data));
  return out;
}

/** A whole archive: the entries, the end marker (two zero blocks), then `trailing` bytes as given. */
export function tarArchive(entries: readonly TarEntry[], trailing: Uint8Array = new Uint8Array(0)): Uint8Array {
  return Buffer.concat([...entries.flatMap(tarEntry), new Uint8Array(2 * BLOCK), trailing]);
}
