import { describe, expect, test } from "bun:test";
import { LddError, parseLdd, verifyClosure } from "../../initramfs/lib/ldd.ts";

// `ldd dist/metal-hammer` on Debian 12 (glibc 2.36).
const LDD = `	linux-vdso.so.1 (0x00007fe1320c6000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fe131ed0000)
	/lib64/ld-linux-x86-64.so.2 (0x00007fe1320c8000)
	libpthread.so.0 => /lib/x86_64-linux-gnu/libpthread.so.0 (0x00007fe131ecb000)
	libdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007fe131ec6000)
	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007fe131de6000)
`;
const BIN = { interpreter: "/lib64/ld-linux-x86-64.so.2", needed: ["libc.so.6", "ld-linux-x86-64.so.2", "libpthread.so.0", "libdl.so.2", "libm.so.6"] };
const NEEDED: Record<string, string[]> = {
  "/lib/x86_64-linux-gnu/libc.so.6": ["ld-linux-x86-64.so.2"],
  "/lib/x86_64-linux-gnu/libm.so.6": ["libc.so.6", "ld-linux-x86-64.so.2"],
  "/lib/x86_64-linux-gnu/libpthread.so.0": ["libc.so.6"],
  "/lib/x86_64-linux-gnu/libdl.so.2": ["libc.so.6"],
};
const neededOf = (p: string): string[] => NEEDED[p] ?? [];

describe("ldd output and the ELF closure", () => {
  test("parses the Bun binary's five libraries, skipping the vDSO", () => {
    expect(parseLdd(LDD).map((l) => l.path)).toEqual([
      "/lib/x86_64-linux-gnu/libc.so.6",
      "/lib64/ld-linux-x86-64.so.2",
      "/lib/x86_64-linux-gnu/libpthread.so.0",
      "/lib/x86_64-linux-gnu/libdl.so.2",
      "/lib/x86_64-linux-gnu/libm.so.6",
    ]);
  });

  test("a library ldd cannot find fails the build, naming it", () => {
    expect(() => parseLdd("\tlibfoo.so.1 => not found\n")).toThrow("ldd: libfoo.so.1 not found on the build host");
    expect(() => parseLdd("\tgarbage here\n")).toThrow(LddError);
  });

  test("the closure of the ELF headers equals the ldd list (interpreter by soname and by path)", () => {
    expect(() => verifyClosure(BIN, parseLdd(LDD), neededOf)).not.toThrow();
  });

  test("a DT_NEEDED that ldd did not report is an error", () => {
    const libs = parseLdd(LDD).filter((l) => l.name !== "libm.so.6");
    expect(() => verifyClosure(BIN, libs, neededOf)).toThrow("the ELF headers need libm.so.6, which ldd did not report");
  });

  test("an extra library nothing asks for is an error (nothing else in the image)", () => {
    const libs = [...parseLdd(LDD), { name: "libz.so.1", path: "/lib/x86_64-linux-gnu/libz.so.1" }];
    expect(() => verifyClosure(BIN, libs, neededOf)).toThrow("ldd reported libz.so.1, which no ELF header asks for");
  });

  test("a missing interpreter is an error", () => {
    const libs = parseLdd(LDD).filter((l) => !l.name.startsWith("/"));
    expect(() => verifyClosure(BIN, libs, neededOf)).toThrow(/interpreter \/lib64\/ld-linux-x86-64.so.2 is missing/);
  });
});
