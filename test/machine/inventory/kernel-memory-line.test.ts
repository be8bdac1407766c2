import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findKernelMemoryLine, parseKernelMemoryLine } from "../../../src/machine/inventory/kernel-memory-line.ts";

const QEMU = join(import.meta.dir, "../../fixtures/inventory/qemu-m1024");

describe("parseKernelMemoryLine: the boot line as ghw reads it (y in KiB)", () => {
  // Real lines, each as its source printed it.
  const vectors: [string, string, number, number][] = [
    [
      "6.18.44 x86-64 (the build VM, a /dev/kmsg record)",
      "6,166,196137,-;Memory: 3218936K/25165432K available (18790K kernel code, 2537K rwdata, 10232K rodata, 3732K init, 1224K bss, 495816K reserved, 0K cma-reserved)",
      3218936,
      25165432,
    ],
    [
      "6.1.0-57-amd64 under QEMU -m 1024 (dmesg -r, what metal-hammer writes to /var/log/syslog)",
      "<6>[    0.108730] Memory: 260916K/1048056K available (14343K kernel code, 2338K rwdata, 9132K rodata, 2824K init, 17344K bss, 75384K reserved, 0K cma-reserved)",
      260916,
      1048056,
    ],
    [
      "4.15.0-24-generic x86-64, a journal line (linuxmint/cinnamon#7715)",
      "Jul 09 14:40:50 rudy-linuxMint kernel: Memory: 32796164K/33473300K available (12300K kernel code, 2470K rwdata, 4240K rodata, 2408K init, 2416K bss, 677136K reserved, 0K cma-reserved)",
      32796164,
      33473300,
    ],
    [
      "4.14 arm64 with 256 GiB, dmesg (ikwzm/udmabuf#23)",
      "[    0.000000] Memory: 267434048K/268366912K available (7932K kernel code, 1836K rwdata, 3328K rodata, 1280K init, 7719K bss, 932864K reserved, 0K cma-reserved)",
      267434048,
      268366912,
    ],
    [
      "4.19 armv7, a syslog line with CMA (raspberrypi/linux#2966)",
      "May 12 12:30:24 raspberrypi kernel: [    0.000000] Memory: 939088K/970752K available (8192K kernel code, 627K rwdata, 2164K rodata, 1024K init, 821K bss, 23472K reserved, 8192K cma-reserved)",
      939088,
      970752,
    ],
    [
      "a 32-bit HIGHMEM kernel's tail (swift-nav/piksi_buildroot#416)",
      "Memory: 271948K/311296K available (5289K kernel code, 232K rwdata, 1888K rodata, 11264K init, 222K bss, 22964K reserved, 16384K cma-reserved, 0K highmem)",
      271948,
      311296,
    ],
  ];
  for (const [name, line, availableKiB, totalKiB] of vectors) {
    test(name, () => {
      expect(parseKernelMemoryLine(line)).toEqual({ availableKiB, totalKiB });
    });
  }

  test("lines ghw does not take are not taken: the pre-3.12 lowercase k, other Memory lines, a zero or overflowing total", () => {
    // 3.x ARM before mem_init_print_info (raspberrypi/linux#24): lowercase k.
    expect(parseKernelMemoryLine("[    0.000000] Memory: 155784k/155784k available, 106360k reserved, 0K highmem")).toBeUndefined();
    expect(parseKernelMemoryLine("[    0.000000] Memory: 256MB = 256MB total")).toBeUndefined();
    // lkl (lkl/linux#337).
    expect(parseKernelMemoryLine("[    0.000000] Memory available: 1008324k/0k RAM")).toBeUndefined();
    expect(parseKernelMemoryLine("Memory: 0K/0K available")).toBeUndefined();
    expect(parseKernelMemoryLine(`Memory: 1K/${"9".repeat(20)}K available`)).toBeUndefined();
    expect(parseKernelMemoryLine("Freeing SMP alternatives memory: 52K")).toBeUndefined();
  });

  test("the pattern is RE2's: any of tab, space, CR, LF, FF after the colon; a vertical tab is not one", () => {
    expect(parseKernelMemoryLine("Memory:\t 1K/2K")).toEqual({ availableKiB: 1, totalKiB: 2 });
    expect(parseKernelMemoryLine("Memory:\v1K/2K")).toBeUndefined();
    expect(parseKernelMemoryLine("Memory:1K/2K")).toBeUndefined();
  });
});

describe("findKernelMemoryLine: the first line that gives a total, as ghw scans the syslog file", () => {
  test("in the QEMU -m 1024 capture: y is 1048056 KiB, 520 KiB under -m (the firmware's holes); the same in dmesg -r and /dev/kmsg records", () => {
    const raw = findKernelMemoryLine(readFileSync(join(QEMU, "proc/dmesg"), "utf8"));
    expect(raw).toEqual({ availableKiB: 260916, totalKiB: 1048056 });
    expect(1024 * 1024 - (raw?.totalKiB ?? 0)).toBe(520);
    expect(findKernelMemoryLine(readFileSync(join(QEMU, "kmsg"), "utf8"))).toEqual(raw);
  });

  test("a line whose total is unusable is passed over for the next one; none at all is undefined", () => {
    expect(findKernelMemoryLine("Memory: 1K/0K available\nMemory: 5K/8K available\nMemory: 6K/9K available\n")).toEqual({ availableKiB: 5, totalKiB: 8 });
    expect(findKernelMemoryLine("Linux version 6.1.0\nCommand line: console=ttyS0\n")).toBeUndefined();
    expect(findKernelMemoryLine("")).toBeUndefined();
  });
});
