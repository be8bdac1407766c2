/**
 * Reads the three memory facts the Register figure is chosen from (registered-memory.ts),
 * the way metal-hammer gets it. metal-hammer sends ghw's TotalPhysicalBytes
 * (metal-stack/metal-hammer@ec148e3 cmd/register/register.go:78, :194), and ghw v0.19.1
 * takes, in this order (jaypipes/ghw@ae895d6 pkg/memory/memory_linux.go:47-59, :154-175):
 *  1. the online memory blocks of /sys/devices/system/memory times their size
 *     (memory-blocks.ts). metal-stack's kernel has CONFIG_MEMORY_HOTPLUG=y
 *     (metal-stack/kernel@65ee08a config-mainline-x86_64:970), so this is what real
 *     machines register;
 *  2. only when that directory cannot be read: the total of the kernel's boot line
 *     `Memory: x/yK available` (kernel-memory-line.ts), from the kernel log that
 *     metal-hammer copies to /var/log/syslog first with syslog(2), at most 256 KiB
 *     (register.go:74, :262-277). Here: /dev/kmsg, read without blocking (kmsg.ts);
 *  3. else MemTotal of /proc/meminfo: usable memory, less than physical by what the
 *     firmware and the kernel keep.
 * Sizes match memory as a range (metal-stack/metal-apiserver@3f09705a
 * pkg/db/metal/size.go:222, :250), so MemTotal instead of (1) can put a machine in
 * another size, or none: under QEMU `-m 1024`, (1) is 1073741824, (2) 1048056 KiB, (3)
 * 981724 KiB (test/fixtures/inventory/qemu-m1024).
 *
 * MemTotal on the machine (procfs at /proc) comes through systeminformation: on Linux
 * mem() reads /proc/meminfo with fs.readFile (no program is run); only the memory module
 * is imported (the package's index pulls in every module and their shell-outs). For
 * another procfs root (`inventory --proc DIR`: a captured machine, the tests' fixtures)
 * MemTotal is read from that root's meminfo, and the kernel log from DIR/dmesg (any of
 * `dmesg`, `dmesg -r`, /dev/kmsg records: the line is found in each), never DIR/kmsg: on
 * a real procfs that read blocks and takes the records away from syslog.
 */
import { mem } from "systeminformation/lib/memory.js";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { readBoundedText } from "../../platform/fs/read-bounded.ts";
import { findKernelMemoryLine, parseKernelMemoryLine } from "./kernel-memory-line.ts";
import { KMSG_PATH, searchKmsg, type KmsgScan } from "./kmsg.ts";
import { countMemoryBlocks, isMemoryBlockName, type MemoryBlocksFacts } from "./memory-blocks.ts";
import type { KernelLogFacts, MemoryFacts } from "./registered-memory.ts";

const PROC = "/proc";
const SYSFS_ATTRIBUTE_MAX = 4096;

/** MemTotal of a meminfo text in bytes, or undefined. Pure. */
export function memTotalOf(meminfo: string): number | undefined {
  const kib = Number(/^MemTotal:\s+(\d+) kB$/m.exec(meminfo)?.[1]);
  return Number.isFinite(kib) && kib > 0 ? kib * 1024 : undefined;
}

export async function memTotalBytes(procRoot = PROC): Promise<number | undefined> {
  if (procRoot !== PROC) return memTotalOf(await readBoundedText(join(procRoot, "meminfo"), "sysfs").catch(() => ""));
  const m = await mem();
  return Number.isFinite(m.total) && m.total > 0 ? m.total : undefined;
}

/** <sysRoot>/devices/system/memory: block_size_bytes and each entry's state; undefined when the directory cannot be listed. */
export async function readMemoryBlocks(sysRoot: string): Promise<MemoryBlocksFacts | undefined> {
  const dir = join(sysRoot, "devices/system/memory");
  const names = await readdir(dir).catch(() => undefined);
  if (!names) return undefined;
  // A sysfs attribute is at most a page: a 4 KiB read instead of the 64 KiB chunk of the
  // "sysfs" cap takes 192 states (24 GiB) from 27 to 7 ms.
  const text = (p: string) => readBoundedText(join(dir, p), SYSFS_ATTRIBUTE_MAX).catch(() => undefined);
  // Only the blocks' states are read; the other entries (probe, uevent, power) are not blocks.
  const blocks = await Promise.all(names.filter(isMemoryBlockName).map(async (name) => ({ name, state: await text(join(name, "state")) })));
  return { blockSize: await text("block_size_bytes"), blocks };
}

/** Why a search of /dev/kmsg may have missed the line: a bound, or records gone from the ring buffer. */
function kmsgMiss(scan: KmsgScan<unknown>): { problem?: string } {
  if (scan.end === "reads" || scan.end === "bytes") return { problem: `stopped after ${scan.records} records, ${scan.bytes} bytes (the ${scan.end} bound)` };
  if ((scan.firstSeq ?? 0) > 0 || scan.lost > 0)
    return { problem: `the boot's first records were overwritten (the log starts at record ${scan.firstSeq ?? "?"}, ${scan.lost} lost while reading)` };
  return {};
}

const why = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** The kernel log's boot line on memory: from /dev/kmsg on the machine, from <procRoot>/dmesg for a captured one. */
export async function readKernelLog(procRoot: string, kmsgPath = KMSG_PATH): Promise<KernelLogFacts> {
  if (procRoot !== PROC) {
    const path = join(procRoot, "dmesg");
    try {
      return { path, line: findKernelMemoryLine(await readBoundedText(path, "textFile")) };
    } catch (e) {
      return { path, line: undefined, problem: `cannot be read (${why(e)})` };
    }
  }
  try {
    const scan = searchKmsg((r) => parseKernelMemoryLine(r.message), kmsgPath);
    return { path: kmsgPath, line: scan.found, ...(scan.found ? {} : kmsgMiss(scan)) };
  } catch (e) {
    return { path: kmsgPath, line: undefined, problem: `cannot be read (${why(e)})` };
  }
}

/**
 * The three facts, read as ghw reads them: the kernel log only when the memory blocks
 * cannot be counted (ghw reads /var/log/syslog only then), so a machine whose sysfs
 * answers never opens /dev/kmsg.
 */
export async function readMemoryFacts(procRoot: string, sysRoot: string, memTotal: (procRoot: string) => Promise<number | undefined> = memTotalBytes): Promise<MemoryFacts> {
  const [memTotalBytesRead, memoryBlocks] = await Promise.all([memTotal(procRoot), readMemoryBlocks(sysRoot)]);
  const kernelLog = countMemoryBlocks(memoryBlocks).ok ? undefined : await readKernelLog(procRoot);
  return { memTotalBytes: memTotalBytesRead, memoryBlocks, kernelLog };
}
