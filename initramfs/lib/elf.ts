/**
 * Just enough of ELF64 (little-endian) to list what a dynamic executable needs at
 * run time: the program interpreter (PT_INTERP) and the DT_NEEDED libraries. Pure;
 * every offset is bounds-checked and a malformed file throws ElfError.
 */
export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PT_INTERP = 3;
export const DT_NULL = 0;
export const DT_NEEDED = 1;
export const DT_STRTAB = 5;

export class ElfError extends Error {
  override readonly name = "ElfError";
}

export interface ElfDeps {
  /** PT_INTERP, e.g. "/lib64/ld-linux-x86-64.so.2"; undefined for static or shared objects without one. */
  readonly interpreter: string | undefined;
  /** DT_NEEDED sonames in file order. */
  readonly needed: readonly string[];
}

interface Segment {
  type: number;
  offset: number;
  vaddr: number;
  filesz: number;
}

export function readElfDeps(bytes: Uint8Array): ElfDeps {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (off: number, len: number, what: string): void => {
    if (off < 0 || len < 0 || off + len > bytes.length) throw new ElfError(`ELF: ${what} at ${off}+${len} lies outside the ${bytes.length}-byte file`);
  };
  need(0, 64, "header");
  if (bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) throw new ElfError("ELF: bad magic, expected \\x7fELF");
  if (bytes[4] !== 2) throw new ElfError(`ELF: class ${bytes[4]}, expected 2 (64-bit)`);
  if (bytes[5] !== 1) throw new ElfError(`ELF: data encoding ${bytes[5]}, expected 1 (little-endian)`);
  const u64 = (o: number): number => Number(dv.getBigUint64(o, true));
  const phoff = u64(32);
  const phentsize = dv.getUint16(54, true);
  const phnum = dv.getUint16(56, true);
  if (phentsize < 56) throw new ElfError(`ELF: program header size ${phentsize}, expected >= 56`);
  need(phoff, phentsize * phnum, "program headers");
  const segs: Segment[] = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    segs.push({ type: dv.getUint32(o, true), offset: u64(o + 8), vaddr: u64(o + 16), filesz: u64(o + 32) });
  }
  const cstr = (off: number, what: string): string => {
    need(off, 1, what);
    const end = bytes.indexOf(0, off);
    if (end < 0) throw new ElfError(`ELF: ${what} at ${off} is not NUL-terminated`);
    return new TextDecoder().decode(bytes.subarray(off, end));
  };
  const interp = segs.find((s) => s.type === PT_INTERP);
  let interpreter: string | undefined;
  if (interp) {
    need(interp.offset, interp.filesz, "PT_INTERP");
    interpreter = cstr(interp.offset, "PT_INTERP");
  }
  const dyn = segs.find((s) => s.type === PT_DYNAMIC);
  if (!dyn) return { interpreter, needed: [] };
  need(dyn.offset, dyn.filesz, "PT_DYNAMIC");
  const neededOffsets: number[] = [];
  let strtabVaddr: number | undefined;
  for (let o = dyn.offset; o + 16 <= dyn.offset + dyn.filesz; o += 16) {
    const tag = u64(o);
    if (tag === DT_NULL) break;
    if (tag === DT_NEEDED) neededOffsets.push(u64(o + 8));
    if (tag === DT_STRTAB) strtabVaddr = u64(o + 8);
  }
  if (neededOffsets.length === 0) return { interpreter, needed: [] };
  if (strtabVaddr === undefined) throw new ElfError("ELF: DT_NEEDED without DT_STRTAB");
  const strtab = vaddrToOffset(segs, strtabVaddr);
  return { interpreter, needed: neededOffsets.map((n) => cstr(strtab + n, "DT_NEEDED name")) };
}

function vaddrToOffset(segs: readonly Segment[], vaddr: number): number {
  for (const s of segs) if (s.type === PT_LOAD && vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) return s.offset + (vaddr - s.vaddr);
  throw new ElfError(`ELF: address 0x${vaddr.toString(16)} is in no PT_LOAD segment`);
}
