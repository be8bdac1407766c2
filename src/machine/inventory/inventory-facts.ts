/**
 * The raw facts the inventory is built from, as read from /proc, /sys, the kernel log
 * and systeminformation (read.ts). Plain data: the mapping to the Register message
 * (map.ts) is pure and tested with fixtures.
 */
import type { MemoryBlocksFacts } from "./memory-blocks.ts";
import type { KernelLogFacts } from "./registered-memory.ts";

export interface NetFacts {
  readonly name: string;
  /** /sys/class/net/<name>/address */
  readonly address: string | undefined;
  /** /sys/class/net/<name>/type (1 = ARPHRD_ETHER) */
  readonly type: string | undefined;
  /** /sys/class/net/<name>/speed in Mbit/s ("-1" or unreadable without link) */
  readonly speed: string | undefined;
  /** Resolved /sys/class/net/<name>/device, undefined for virtual interfaces. */
  readonly devicePath: string | undefined;
  /** device/vendor and device/device ("0x8086", "0x1572") */
  readonly vendorId: string | undefined;
  readonly deviceId: string | undefined;
  /** Basename of device/driver ("i40e") */
  readonly driver: string | undefined;
}

export interface BlockFacts {
  readonly name: string;
  /** /sys/block/<name>/size: 512-byte sectors, whatever the logical block size. */
  readonly sectors: string | undefined;
}

export interface PciFacts {
  /** "0000:01:00.0" */
  readonly address: string;
  /** "0x030200" */
  readonly class: string | undefined;
  readonly vendorId: string | undefined;
  readonly deviceId: string | undefined;
}

export interface DmiFacts {
  readonly biosVendor: string | undefined;
  readonly biosVersion: string | undefined;
  readonly biosDate: string | undefined;
}

export interface RawFacts {
  /** systeminformation mem().total (MemTotal of /proc/meminfo, bytes): the last way to the memory figure. */
  readonly memTotalBytes: number | undefined;
  /** /sys/devices/system/memory: the first way (registered-memory.ts); absent or undefined: not readable. */
  readonly memoryBlocks?: MemoryBlocksFacts | undefined;
  /** The kernel log's boot line on memory: the second way. */
  readonly kernelLog?: KernelLogFacts | undefined;
  /** /proc/cpuinfo */
  readonly cpuinfo: string;
  readonly nets: readonly NetFacts[];
  readonly blocks: readonly BlockFacts[];
  readonly pci: readonly PciFacts[];
  readonly dmi: DmiFacts;
  /** The pci.ids text the names come from, and its path; undefined when none could be read. */
  readonly pciIds?: { readonly path: string; readonly text: string } | undefined;
}
