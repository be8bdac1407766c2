/**
 * The memory figure Register gets, and where it came from, in ghw's order (memory.ts
 * says why that order): the online memory blocks; only when /sys/devices/system/memory
 * cannot be read, the total of the kernel's boot line; else MemTotal. Every way but the
 * first adds a note, which the inventory log line carries. Pure.
 */
import type { KernelMemoryLine } from "./kernel-memory-line.ts";
import { countMemoryBlocks, type MemoryBlocksFacts } from "./memory-blocks.ts";

export type MemorySource = "memory-blocks" | "kernel-log" | "meminfo";

/** The kernel log searched for the boot line: where, what was found, and what stopped the search short. */
export interface KernelLogFacts {
  /** /dev/kmsg, or a captured machine's <proc>/dmesg. */
  readonly path: string;
  readonly line: KernelMemoryLine | undefined;
  /** Why the log could not be searched to its end (unreadable, a bound); undefined when it was. */
  readonly problem?: string | undefined;
}

export interface MemoryFacts {
  /** MemTotal of /proc/meminfo in bytes. */
  readonly memTotalBytes: number | undefined;
  readonly memoryBlocks?: MemoryBlocksFacts | undefined;
  readonly kernelLog?: KernelLogFacts | undefined;
}

export interface RegisteredMemory {
  /** Bytes; undefined when nothing could be read. */
  readonly bytes: number | undefined;
  readonly source: MemorySource | undefined;
  /** Why the figure is not the memory blocks' (a line of the inventory's notes). */
  readonly note?: string;
}

const BLOCKS_DIR = "/sys/devices/system/memory";

function fromMemTotal(f: MemoryFacts, why: string): RegisteredMemory {
  const total = f.memTotalBytes;
  if (total === undefined || !Number.isFinite(total) || total <= 0)
    return { bytes: undefined, source: undefined, note: `memory: ${why}, and MemTotal could not be read (/proc/meminfo): 0 sent` };
  return { bytes: Math.floor(total), source: "meminfo", note: `memory: ${why}: MemTotal sent (usable memory, less than the physical memory metal-hammer sends)` };
}

function kernelLogMiss(k: KernelLogFacts | undefined): string {
  if (!k) return "no kernel log was read";
  if (k.problem) return `${k.path}: ${k.problem}`;
  return `${k.path} has no "Memory: <x>K/<y>K available" line`;
}

export function registeredMemory(f: MemoryFacts): RegisteredMemory {
  const blocks = countMemoryBlocks(f.memoryBlocks);
  if (blocks.ok && blocks.bytes > 0) return { bytes: blocks.bytes, source: "memory-blocks" };
  // ghw reads the boot line only when the directory fails, not when it counts nothing.
  if (blocks.ok) return fromMemTotal(f, `no online memory block in ${BLOCKS_DIR}`);
  const line = f.kernelLog?.line;
  if (line && f.kernelLog) {
    return {
      bytes: line.totalKiB * 1024,
      source: "kernel-log",
      note: `memory: ${BLOCKS_DIR} ${blocks.reason}: the total of the kernel's boot line in ${f.kernelLog.path} (Memory: ${line.availableKiB}K/${line.totalKiB}K) sent, as metal-hammer falls back to`,
    };
  }
  return fromMemTotal(f, `${BLOCKS_DIR} ${blocks.reason} and ${kernelLogMiss(f.kernelLog)}`);
}
