import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countMemoryBlocks } from "../../../src/machine/inventory/memory-blocks.ts";
import { memTotalBytes, memTotalOf, readKernelLog, readMemoryBlocks, readMemoryFacts } from "../../../src/machine/inventory/memory.ts";
import { findKernelMemoryLine } from "../../../src/machine/inventory/kernel-memory-line.ts";
import { toInventory } from "../../../src/machine/inventory/map.ts";
import { readFacts } from "../../../src/machine/inventory/read.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { isRoot } from "../../helpers/netns.ts";

const FIX = join(import.meta.dir, "../../fixtures/inventory");
/** QEMU -m 1024 booted from the lab's kernel (test/fixtures/inventory/README.md). */
const QEMU = join(FIX, "qemu-m1024");
const MiB = 1024 * 1024;

describe("memTotalBytes (systeminformation mem)", () => {
  test("is MemTotal of /proc/meminfo in bytes", async () => {
    const kib = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1]);
    expect(kib).toBeGreaterThan(0);
    expect(await memTotalBytes()).toBe(kib * 1024);
  });

  test("another procfs root is read from its own meminfo (a captured machine, a fixture); MemTotal in bytes, else undefined", async () => {
    expect(await memTotalBytes(join(FIX, "proc"))).toBe(24683620 * 1024);
    expect(await memTotalBytes("/nonexistent-proc-root")).toBeUndefined();
    expect(memTotalOf("MemFree: 1 kB\n")).toBeUndefined();
    expect(memTotalOf("MemTotal:       2048 kB\n")).toBe(2048 * 1024);
  });
});

describe("the memory Register gets, on the QEMU -m 1024 capture", () => {
  test("as metal-hammer: 8 online blocks of 128 MiB = 1024 MiB, QEMU's -m exactly; the boot line says 520 KiB less, MemTotal 66852 KiB less still", async () => {
    const inv = toInventory(await readFacts({ sysRoot: join(QEMU, "sys"), procRoot: join(QEMU, "proc") }));
    expect(inv.hardware.memory).toBe(String(1024 * MiB));
    expect(inv.memorySource).toBe("memory-blocks");
    expect(inv.notes.filter((n) => n.startsWith("memory:"))).toEqual([]);
    expect(memTotalOf(readFileSync(join(QEMU, "proc/meminfo"), "utf8"))).toBe(981724 * 1024);
    expect(findKernelMemoryLine(readFileSync(join(QEMU, "proc/dmesg"), "utf8"))?.totalKiB).toBe(1048056);
  });

  test("without the memory blocks (a kernel without CONFIG_MEMORY_HOTPLUG): the boot line's total from the captured dmesg, with a note", async () => {
    const inv = toInventory(await readFacts({ sysRoot: "/nonexistent-mh-sys", procRoot: join(QEMU, "proc") }));
    expect(inv.hardware.memory).toBe(String(1048056 * 1024));
    expect(inv.memorySource).toBe("kernel-log");
    expect(inv.notes).toContain(
      `memory: /sys/devices/system/memory cannot be listed: the total of the kernel's boot line in ${join(QEMU, "proc/dmesg")} (Memory: 260916K/1048056K) sent, as metal-hammer falls back to`,
    );
  });

  test("the kernel log is read only when the blocks cannot be counted, as ghw reads /var/log/syslog only then", async () => {
    const withBlocks = await readMemoryFacts(join(QEMU, "proc"), join(QEMU, "sys"));
    expect(withBlocks.kernelLog).toBeUndefined();
    expect(countMemoryBlocks(withBlocks.memoryBlocks)).toMatchObject({ ok: true, online: 8, blockBytes: 128 * MiB });
    const without = await readMemoryFacts(join(QEMU, "proc"), "/nonexistent-mh-sys");
    expect(without).toEqual({
      memTotalBytes: 981724 * 1024,
      memoryBlocks: undefined,
      kernelLog: { path: join(QEMU, "proc/dmesg"), line: { availableKiB: 260916, totalKiB: 1048056 } },
    });
  });

  test("a kernel log without the line says why when it can: its first records are gone (a ring buffer that wrapped)", async () => {
    // A regular file stands in for the device: one read gives the record, the next 0 (the end).
    const dir = mkdtempSync(join(tmpdir(), "mh-kmsg-"));
    try {
      writeFileSync(join(dir, "kmsg"), "6,5120,9000000,-;usb 1-1: new high-speed USB device\n");
      expect(await readKernelLog("/proc", join(dir, "kmsg"))).toEqual({
        path: join(dir, "kmsg"),
        line: undefined,
        problem: "the boot's first records were overwritten (the log starts at record 5120, 0 lost while reading)",
      });
      writeFileSync(join(dir, "kmsg"), "6,0,0,-;Linux version 6.1.0\n");
      expect(await readKernelLog("/proc", join(dir, "kmsg"))).toEqual({ path: join(dir, "kmsg"), line: undefined });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a captured machine's kernel log is <proc>/dmesg in any of dmesg's forms; a missing one says so", async () => {
    expect((await readKernelLog(join(FIX, "proc"))).problem).toBe("cannot be read (ENOENT)");
    expect(await readMemoryBlocks("/nonexistent-mh-sys")).toBeUndefined();
  });
});

describe.if(prerequisites("memory of this machine", [!existsSync("/sys/devices/system/memory") && "/sys/devices/system/memory"]))("memory of this machine", () => {
  test("the memory blocks count at least MemTotal (physical memory includes what the kernel keeps)", async () => {
    const count = countMemoryBlocks(await readMemoryBlocks("/sys"));
    expect(count.ok).toBe(true);
    if (count.ok) expect(count.bytes).toBeGreaterThanOrEqual((await memTotalBytes()) ?? Number.POSITIVE_INFINITY);
  });
});

describe.if(prerequisites("the kernel log of this machine", [!isRoot && "root (CAP_SYSLOG)", !existsSync("/dev/kmsg") && "/dev/kmsg"]))("the kernel log of this machine", () => {
  test("/dev/kmsg gives the boot line the syslog(2) text gives (dmesg -r), or says why not", async () => {
    const k = await readKernelLog("/proc");
    expect(k.path).toBe("/dev/kmsg");
    const dmesg = Bun.spawnSync(["dmesg", "-r"], { stdout: "pipe", stderr: "pipe" });
    if (dmesg.exitCode === 0) expect(k.line).toEqual(findKernelMemoryLine(dmesg.stdout.toString()));
    if (!k.line) expect(k.problem).toBeDefined();
  });

  test("a kernel log device that is not there is a problem, not an error", async () => {
    expect(await readKernelLog("/proc", "/nonexistent-mh/kmsg")).toEqual({ path: "/nonexistent-mh/kmsg", line: undefined, problem: "cannot be read (ENOENT)" });
  });
});
