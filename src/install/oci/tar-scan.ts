/**
 * Reads the member names of a tar stream as it passes by, in chunks of any size, without
 * holding more than one header (and a long name) at a time: the whiteout plan needs what
 * each layer wrote (whiteout-plan.ts), while GNU tar does the writing. Understands ustar
 * (name + prefix), GNU long names (`L`) and pax extended headers (`x`: `path`, `size`);
 * stops at the first zero block (the end-of-archive marker). Pure.
 */

export const BLOCK = 512;
/** A GNU long name or pax header larger than this is refused (PATH_MAX is 4 KiB; pax headers of xattrs reach a few KiB). */
export const MAX_EXTENDED_HEADER_BYTES = 1 << 20;

export class TarScanError extends Error {
  override readonly name = "TarScanError";
}

export interface TarMember {
  /** Normalised: no leading "./" or "/", no trailing "/"; "" is the root. */
  readonly path: string;
  /** The typeflag character ("0" file, "5" directory, "2" symlink, ...). */
  readonly type: string;
}

/** `./a//b/` -> `a/b`. Pure. */
export function normaliseMemberPath(p: string): string {
  return p
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .join("/");
}

function cstring(b: Uint8Array, start: number, len: number): string {
  let end = start;
  while (end < start + len && b[end] !== 0) end++;
  return new TextDecoder().decode(b.subarray(start, end));
}

/** A numeric header field: octal (space/NUL padded) or GNU base-256 (high bit set). */
export function headerNumber(b: Uint8Array, start: number, len: number): number {
  if (((b[start] as number) & 0x80) !== 0) {
    let n = (b[start] as number) & 0x7f;
    for (let i = start + 1; i < start + len; i++) n = n * 256 + (b[i] as number);
    return n;
  }
  const s = cstring(b, start, len).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) throw new TarScanError(`bad numeric field ${JSON.stringify(s.slice(0, 20))} in a tar header`);
  return Number.parseInt(s, 8);
}

/** pax records `LEN key=value\n`: the keys read here. */
export function parsePax(b: Uint8Array): { path?: string; size?: number } {
  const out: { path?: string; size?: number } = {};
  const text = new TextDecoder().decode(b);
  let i = 0;
  while (i < text.length) {
    const sp = text.indexOf(" ", i);
    if (sp < 0) break;
    const len = Number(text.slice(i, sp));
    if (!Number.isSafeInteger(len) || len <= 0) throw new TarScanError("bad pax record length");
    // Lengths count bytes; the records read here are ASCII keys, values compared as text.
    const rec = text.slice(sp + 1, i + len - 1);
    const eq = rec.indexOf("=");
    if (eq > 0) {
      const k = rec.slice(0, eq);
      const v = rec.slice(eq + 1);
      if (k === "path") out.path = v;
      else if (k === "size" && /^\d+$/.test(v)) out.size = Number(v);
    }
    i += len;
  }
  return out;
}

/** Typeflags whose size counts no data (links, devices, directories, FIFOs). */
const NO_DATA = new Set(["1", "2", "3", "4", "5", "6"]);

export class TarScanner {
  readonly #onMember: (m: TarMember) => void;
  readonly #header = new Uint8Array(BLOCK);
  #have = 0;
  /** Bytes of data (and padding) still to pass. */
  #skip = 0;
  /** Collecting a long name or pax header: its bytes, how many are wanted, and for which kind. */
  #ext: { buf: Uint8Array; have: number; kind: "L" | "x"; pad: number } | undefined;
  #nextPath: string | undefined;
  #nextSize: number | undefined;
  #ended = false;

  constructor(onMember: (m: TarMember) => void) {
    this.#onMember = onMember;
  }

  /** The end-of-archive marker was read (what follows is ignored). */
  get ended(): boolean {
    return this.#ended;
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.byteLength && !this.#ended) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, chunk.byteLength - i);
        this.#skip -= n;
        i += n;
      } else if (this.#ext) {
        const e = this.#ext;
        const n = Math.min(e.buf.byteLength - e.have, chunk.byteLength - i);
        e.buf.set(chunk.subarray(i, i + n), e.have);
        e.have += n;
        i += n;
        if (e.have === e.buf.byteLength) this.#endExtended(e);
      } else {
        const n = Math.min(BLOCK - this.#have, chunk.byteLength - i);
        this.#header.set(chunk.subarray(i, i + n), this.#have);
        this.#have += n;
        i += n;
        if (this.#have === BLOCK) {
          this.#have = 0;
          this.#onHeader();
        }
      }
    }
  }

  #endExtended(e: { buf: Uint8Array; kind: "L" | "x"; pad: number }): void {
    this.#ext = undefined;
    this.#skip = e.pad;
    if (e.kind === "L") this.#nextPath = cstring(e.buf, 0, e.buf.byteLength);
    else {
      const p = parsePax(e.buf);
      if (p.path !== undefined) this.#nextPath = p.path;
      if (p.size !== undefined) this.#nextSize = p.size;
    }
  }

  #onHeader(): void {
    const h = this.#header;
    if (h.every((b) => b === 0)) {
      this.#ended = true;
      return;
    }
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (h[i] as number);
    if (headerNumber(h, 148, 8) !== sum) throw new TarScanError("a tar header's checksum does not match (not a tar stream, or corrupt)");
    const type = h[156] === 0 ? "0" : String.fromCharCode(h[156] as number);
    const size = this.#nextSize ?? headerNumber(h, 124, 12);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L" || type === "x") {
      if (size > MAX_EXTENDED_HEADER_BYTES) throw new TarScanError(`a ${type === "L" ? "GNU long name" : "pax header"} of ${size} bytes, more than ${MAX_EXTENDED_HEADER_BYTES}`);
      this.#nextSize = undefined;
      this.#ext = { buf: new Uint8Array(size), have: 0, kind: type, pad: padded - size };
      if (size === 0) this.#endExtended(this.#ext);
      return;
    }
    if (type === "g" || type === "K") {
      this.#skip = padded;
      return;
    }
    const ustar = cstring(h, 257, 6) === "ustar";
    const prefix = ustar ? cstring(h, 345, 155) : "";
    const name = this.#nextPath ?? (prefix !== "" ? `${prefix}/${cstring(h, 0, 100)}` : cstring(h, 0, 100));
    this.#nextPath = undefined;
    this.#nextSize = undefined;
    this.#onMember({ path: normaliseMemberPath(name), type });
    this.#skip = NO_DATA.has(type) ? 0 : padded;
  }
}
