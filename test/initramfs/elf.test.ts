import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { ElfError, readElfDeps } from "../../initramfs/lib/elf.ts";
import { prerequisites } from "../helpers/prerequisites.ts";

const haveBusybox = prerequisites("the busybox ELF check (busybox-static, make deps)", [!existsSync("/bin/busybox") && "/bin/busybox"]);

/** A minimal ELF64 LE: PT_LOAD over the whole file at 0x400000, optional PT_INTERP, PT_DYNAMIC with DT_NEEDED. */
function makeElf(opts: { interp?: string; needed: string[]; strtabInLoad?: boolean }): Uint8Array {
  const phnum = 3;
  const phoff = 64;
  const strs = ["", ...opts.needed].join("\0") + "\0";
  const strOff = phoff + phnum * 56;
  const interpOff = strOff + strs.length;
  const interp = opts.interp ? opts.interp + "\0" : "";
  const dynOff = Math.ceil((interpOff + interp.length) / 8) * 8;
  const dynEntries: [number, number][] = [];
  let idx = 1;
  for (const n of opts.needed) {
    dynEntries.push([1, idx]);
    idx += n.length + 1;
  }
  dynEntries.push([5, (opts.strtabInLoad === false ? 0x900000 : 0x400000) + strOff], [0, 0]);
  const size = dynOff + dynEntries.length * 16;
  const b = new Uint8Array(size);
  const dv = new DataView(b.buffer);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
  dv.setBigUint64(32, BigInt(phoff), true);
  dv.setUint16(54, 56, true);
  dv.setUint16(56, phnum, true);
  const ph = (i: number, type: number, off: number, len: number): void => {
    const o = phoff + i * 56;
    dv.setUint32(o, type, true);
    dv.setBigUint64(o + 8, BigInt(off), true);
    dv.setBigUint64(o + 16, BigInt(0x400000 + off), true);
    dv.setBigUint64(o + 32, BigInt(len), true);
  };
  ph(0, 1, 0, size);
  ph(1, opts.interp ? 3 : 0, interpOff, interp.length);
  ph(2, 2, dynOff, dynEntries.length * 16);
  b.set(new TextEncoder().encode(strs), strOff);
  b.set(new TextEncoder().encode(interp), interpOff);
  dynEntries.forEach(([tag, val], i) => {
    dv.setBigUint64(dynOff + i * 16, BigInt(tag), true);
    dv.setBigUint64(dynOff + i * 16 + 8, BigInt(val), true);
  });
  return b;
}

describe("ELF dependency reader", () => {
  test("reads the interpreter and DT_NEEDED in file order", () => {
    const elf = makeElf({ interp: "/lib64/ld-linux-x86-64.so.2", needed: ["libc.so.6", "libm.so.6"] });
    expect(readElfDeps(elf)).toEqual({ interpreter: "/lib64/ld-linux-x86-64.so.2", needed: ["libc.so.6", "libm.so.6"] });
  });

  test("a library without PT_INTERP has no interpreter", () => {
    expect(readElfDeps(makeElf({ needed: ["libc.so.6"] })).interpreter).toBeUndefined();
  });

  test("not an ELF, 32-bit, big-endian and truncated files are rejected", () => {
    expect(() => readElfDeps(new TextEncoder().encode("#!/bin/sh\n".padEnd(64)))).toThrow(/bad magic/);
    const e = makeElf({ needed: [] });
    expect(() => readElfDeps(Uint8Array.from(e, (v, i) => (i === 4 ? 1 : v)))).toThrow(/class 1, expected 2/);
    expect(() => readElfDeps(Uint8Array.from(e, (v, i) => (i === 5 ? 2 : v)))).toThrow(/expected 1 \(little-endian\)/);
    expect(() => readElfDeps(makeElf({ needed: ["libc.so.6"] }).subarray(0, 100))).toThrow(ElfError);
  });

  test("a string table outside every PT_LOAD segment is an error, not garbage", () => {
    expect(() => readElfDeps(makeElf({ needed: ["libc.so.6"], strtabInLoad: false }))).toThrow(/in no PT_LOAD segment/);
  });

  test.skipIf(!haveBusybox)("the host's busybox-static has no interpreter", () => {
    expect(readElfDeps(new Uint8Array(readFileSync("/bin/busybox"))).interpreter).toBeUndefined();
  });
});
