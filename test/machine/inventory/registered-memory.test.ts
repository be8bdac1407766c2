import { describe, expect, test } from "bun:test";
import { registeredMemory } from "../../../src/machine/inventory/registered-memory.ts";

const GiB = 1024 ** 3;
const eightBlocks = { blockSize: "8000000", blocks: Array.from({ length: 8 }, (_, i) => ({ name: `memory${i}`, state: "online" })) };
const bootLine = { path: "/dev/kmsg", line: { availableKiB: 260916, totalKiB: 1048056 } };
const memTotalBytes = 981724 * 1024;

describe("registeredMemory: ghw's order (QEMU -m 1024 figures)", () => {
  test("the memory blocks when they count something: exactly -m, no note", () => {
    expect(registeredMemory({ memTotalBytes, memoryBlocks: eightBlocks, kernelLog: bootLine })).toEqual({ bytes: GiB, source: "memory-blocks" });
  });

  test("no memory-blocks directory: the boot line's total in bytes, with a note saying so", () => {
    expect(registeredMemory({ memTotalBytes, memoryBlocks: undefined, kernelLog: bootLine })).toEqual({
      bytes: 1048056 * 1024,
      source: "kernel-log",
      note: "memory: /sys/devices/system/memory cannot be listed: the total of the kernel's boot line in /dev/kmsg (Memory: 260916K/1048056K) sent, as metal-hammer falls back to",
    });
  });

  test("blocks that count nothing go to MemTotal, not to the boot line (as ghw)", () => {
    const none = { blockSize: "8000000", blocks: [{ name: "memory0", state: "offline" }] };
    expect(registeredMemory({ memTotalBytes, memoryBlocks: none, kernelLog: bootLine })).toEqual({
      bytes: memTotalBytes,
      source: "meminfo",
      note: "memory: no online memory block in /sys/devices/system/memory: MemTotal sent (usable memory, less than the physical memory metal-hammer sends)",
    });
  });

  test("neither blocks nor a boot line: MemTotal, the note says what was missing and why", () => {
    const noLine = { path: "/dev/kmsg", line: undefined };
    expect(registeredMemory({ memTotalBytes, memoryBlocks: undefined, kernelLog: noLine }).note).toBe(
      'memory: /sys/devices/system/memory cannot be listed and /dev/kmsg has no "Memory: <x>K/<y>K available" line: MemTotal sent (usable memory, less than the physical memory metal-hammer sends)',
    );
    const unreadable = { path: "/dev/kmsg", line: undefined, problem: "cannot be read (EPERM)" };
    expect(registeredMemory({ memTotalBytes, kernelLog: unreadable })).toMatchObject({ bytes: memTotalBytes, source: "meminfo" });
    expect(registeredMemory({ memTotalBytes, kernelLog: unreadable }).note).toContain("/dev/kmsg: cannot be read (EPERM)");
    expect(registeredMemory({ memTotalBytes }).note).toContain("no kernel log was read");
  });

  test("nothing readable at all: no bytes, no source, a note", () => {
    expect(registeredMemory({ memTotalBytes: undefined })).toEqual({
      bytes: undefined,
      source: undefined,
      note: "memory: /sys/devices/system/memory cannot be listed and no kernel log was read, and MemTotal could not be read (/proc/meminfo): 0 sent",
    });
    expect(registeredMemory({ memTotalBytes: Number.NaN }).bytes).toBeUndefined();
  });
});
