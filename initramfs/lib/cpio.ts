/**
 * cpio "newc" (SVR4 without CRC) encoder and decoder, the format the kernel unpacks
 * as an initramfs (Documentation/driver-api/early-userspace/buffer-format.rst).
 * Pure: entries in, bytes out. Every header field is fixed by the entry itself
 * (owner 0:0, one mtime for all, inode = position), so the same entries always give
 * the same bytes.
 *
 * Layout per entry: 110-byte ASCII header "070701" + 13 fields of 8 hex digits,
 * the NUL-terminated name padded to a multiple of 4 (header included), the data
 * padded to a multiple of 4. The archive ends with the entry "TRAILER!!!".
 */

export const NEWC_MAGIC = "070701";
export const TRAILER = "TRAILER!!!";
const HEADER_LEN = 110;

export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const S_IFLNK = 0o120000;
export const S_IFCHR = 0o020000;
export const S_IFBLK = 0o060000;

export type CpioEntry =
  | { readonly kind: "dir"; readonly path: string; readonly mode: number }
  | { readonly kind: "file"; readonly path: string; readonly mode: number; readonly size: number }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  | { readonly kind: "char" | "block"; readonly path: string; readonly mode: number; readonly major: number; readonly minor: number };

export interface HeaderFields {
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  mtime: number;
  filesize: number;
  devmajor: number;
  devminor: number;
  rdevmajor: number;
  rdevminor: number;
  namesize: number;
  check: number;
}

const FIELD_ORDER: readonly (keyof HeaderFields)[] = [
  "ino",
  "mode",
  "uid",
  "gid",
  "nlink",
  "mtime",
  "filesize",
  "devmajor",
  "devminor",
  "rdevmajor",
  "rdevminor",
  "namesize",
  "check",
];

export class CpioError extends Error {
  override readonly name = "CpioError";
}

const pad4 = (n: number): number => (4 - (n % 4)) % 4;
const enc = new TextEncoder();

function hex8(field: string, n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new CpioError(`cpio field ${field}=${n}: expected an integer in 0..0xffffffff`);
  return n.toString(16).padStart(8, "0");
}

/** Archive names have no leading slash ("init", "lib/modules"), like `find . | cpio` without "./". */
export function archiveName(path: string): string {
  const name = path.replace(/^\/+/, "");
  if (name === "" || name.split("/").some((p) => p === "" || p === "." || p === "..")) {
    throw new CpioError(`cpio path ${JSON.stringify(path)}: expected a normalized path without empty, "." or ".." parts`);
  }
  return name;
}

function modeOf(e: CpioEntry): number {
  const perm = e.kind === "symlink" ? 0o777 : e.mode & 0o7777;
  if (e.kind !== "symlink" && (e.mode & ~0o7777) !== 0) throw new CpioError(`cpio ${e.path}: mode ${e.mode.toString(8)} must hold permission bits only`);
  const type = { dir: S_IFDIR, file: S_IFREG, symlink: S_IFLNK, char: S_IFCHR, block: S_IFBLK }[e.kind];
  return type | perm;
}

/** The body of an entry that is not a regular file (a symlink's target), empty otherwise. */
export function inlineData(e: CpioEntry): Uint8Array {
  return e.kind === "symlink" ? enc.encode(e.target) : new Uint8Array(0);
}

export function dataSize(e: CpioEntry): number {
  return e.kind === "file" ? e.size : inlineData(e).length;
}

/** Header plus padded name for one entry; the caller writes the data and dataPadding() after it. */
export function encodeHeader(name: string, fields: Omit<HeaderFields, "namesize">): Uint8Array {
  const nameBytes = enc.encode(name);
  const all: HeaderFields = { ...fields, namesize: nameBytes.length + 1 };
  const text = NEWC_MAGIC + FIELD_ORDER.map((k) => hex8(k, all[k])).join("");
  const total = HEADER_LEN + all.namesize;
  const out = new Uint8Array(total + pad4(total));
  out.set(enc.encode(text), 0);
  out.set(nameBytes, HEADER_LEN);
  return out;
}

export function dataPadding(size: number): Uint8Array {
  return new Uint8Array(pad4(size));
}

export function entryHeader(e: CpioEntry, ino: number, mtime: number): Uint8Array {
  const dev = e.kind === "char" || e.kind === "block";
  return encodeHeader(archiveName(e.path), {
    ino,
    mode: modeOf(e),
    uid: 0,
    gid: 0,
    nlink: e.kind === "dir" ? 2 : 1,
    mtime,
    filesize: dataSize(e),
    devmajor: 0,
    devminor: 0,
    rdevmajor: dev ? e.major : 0,
    rdevminor: dev ? e.minor : 0,
    check: 0,
  });
}

export function trailer(): Uint8Array {
  return encodeHeader(TRAILER, {
    ino: 0,
    mode: 0,
    uid: 0,
    gid: 0,
    nlink: 1,
    mtime: 0,
    filesize: 0,
    devmajor: 0,
    devminor: 0,
    rdevmajor: 0,
    rdevminor: 0,
    check: 0,
  });
}

/**
 * The archive as a sequence of byte chunks. Regular files' contents come from
 * `fileData` (the shell reads them); everything else is produced here. Inodes are
 * 1..n in entry order.
 */
export function* cpioChunks(entries: readonly CpioEntry[], mtime: number, fileData: (e: Extract<CpioEntry, { kind: "file" }>) => Uint8Array): Generator<Uint8Array> {
  let ino = 1;
  for (const e of entries) {
    yield entryHeader(e, ino++, mtime);
    const data = e.kind === "file" ? fileData(e) : inlineData(e);
    if (data.length !== dataSize(e)) throw new CpioError(`cpio ${e.path}: expected ${dataSize(e)} bytes of data, got ${data.length}`);
    if (data.length > 0) yield data;
    const pad = dataPadding(data.length);
    if (pad.length > 0) yield pad;
  }
  yield trailer();
}

/** The whole archive in memory (small archives, tests). */
export function encodeCpio(entries: readonly CpioEntry[], mtime: number, files: ReadonlyMap<string, Uint8Array> = new Map()): Uint8Array {
  const chunks = [
    ...cpioChunks(entries, mtime, (e) => {
      const d = files.get(e.path);
      if (!d) throw new CpioError(`cpio ${e.path}: no data given`);
      return d;
    }),
  ];
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

export interface DecodedEntry {
  readonly name: string;
  readonly fields: HeaderFields;
  readonly data: Uint8Array;
}

/** Reads a newc archive back, checking every bound; stops at the trailer. */
export function decodeCpio(bytes: Uint8Array): DecodedEntry[] {
  const dec = new TextDecoder("ascii");
  const out: DecodedEntry[] = [];
  let o = 0;
  for (;;) {
    if (o + HEADER_LEN > bytes.length) throw new CpioError(`cpio: truncated header at offset ${o}`);
    const head = dec.decode(bytes.subarray(o, o + HEADER_LEN));
    if (!head.startsWith(NEWC_MAGIC)) throw new CpioError(`cpio: bad magic ${JSON.stringify(head.slice(0, 6))} at offset ${o}, expected ${NEWC_MAGIC}`);
    const fields = {} as HeaderFields;
    FIELD_ORDER.forEach((k, i) => {
      const h = head.slice(6 + i * 8, 14 + i * 8);
      if (!/^[0-9a-fA-F]{8}$/.test(h)) throw new CpioError(`cpio: field ${k} is not hex at offset ${o}`);
      fields[k] = parseInt(h, 16);
    });
    const nameEnd = o + HEADER_LEN + fields.namesize;
    if (fields.namesize < 1 || nameEnd > bytes.length) throw new CpioError(`cpio: name runs past the end at offset ${o}`);
    if (bytes[nameEnd - 1] !== 0) throw new CpioError(`cpio: name not NUL-terminated at offset ${o}`);
    const name = new TextDecoder().decode(bytes.subarray(o + HEADER_LEN, nameEnd - 1));
    const dataStart = nameEnd + pad4(HEADER_LEN + fields.namesize);
    const dataEnd = dataStart + fields.filesize;
    if (dataEnd > bytes.length) throw new CpioError(`cpio: data of ${JSON.stringify(name)} runs past the end`);
    if (name === TRAILER) return out;
    out.push({ name, fields, data: bytes.subarray(dataStart, dataEnd) });
    o = dataEnd + pad4(fields.filesize);
  }
}
