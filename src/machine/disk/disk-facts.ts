/**
 * What the agent knows about one disk, read from sysfs (disk-sysfs.ts). The wipe planner
 * and the layout planner decide from these facts only, so both are pure.
 */
export interface PartitionFacts {
  /** Kernel name, e.g. `vda1`, `nvme0n1p2`. */
  readonly name: string;
  readonly path: string;
  /** Partition number (sysfs `partition`). */
  readonly number: number;
  readonly sizeBytes: number;
}

export interface DiskFacts {
  /** Kernel name, e.g. `sda`, `vda`, `nvme0n1`. */
  readonly name: string;
  /** Device node, `/dev/<name>`. */
  readonly path: string;
  readonly sizeBytes: number;
  readonly logicalBlockSize: number;
  /** queue/rotational: a spinning disk (or a device that says so). */
  readonly rotational: boolean;
  /** queue/discard_max_bytes > 0: the device accepts discard (TRIM/UNMAP/deallocate). */
  readonly discard: boolean;
  readonly discardGranularity: number;
  readonly discardMaxBytes: number;
  /** queue/discard_zeroes_data = 1 (old kernels only): discarded blocks read back as zeroes. */
  readonly discardZeroesData: boolean;
  /** queue/write_zeroes_max_bytes > 0: the device zeroes ranges without data transfer. */
  readonly writeZeroes: boolean;
  /** An NVMe namespace (`nvmeXnY`); `nvmeController` is its controller (`nvmeX`). */
  readonly nvme: boolean;
  readonly nvmeController: string | undefined;
  readonly removable: boolean;
  /** `ro` = 1: the kernel refuses writes (write-protected, or QEMU readonly=on). */
  readonly readOnly: boolean;
  /** Escaped for logs: control and non-ASCII characters as \uXXXX, trimmed. */
  readonly model: string;
  readonly serial: string;
  readonly partitions: readonly PartitionFacts[];
  /** Devices stacked on the disk or its partitions (sysfs `holders`: md arrays, device-mapper/LVM volumes). */
  readonly holders: readonly string[];
}

/** A sysfs string made safe for a log line or a table (firmware strings carry anything). */
export function escapeText(s: string | undefined): string {
  return (s ?? "").trim().replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `/dev/sda` + 1 -> `/dev/sda1`; a name ending in a digit takes a `p` (`/dev/nvme0n1p1`, `/dev/md0p1`). */
export function partitionPath(disk: string, n: number): string {
  return /\d$/.test(disk) ? `${disk}p${n}` : `${disk}${n}`;
}

export const MIB = 1024 * 1024;

export function humanBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}
