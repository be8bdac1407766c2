/**
 * The disk inventory from sysfs: every /sys/block entry that is a real disk (no loop,
 * ram, zram, optical, floppy, nbd, device-mapper or md device; not empty), with the
 * facts the wipe and layout planners decide from. Parsing (`diskFromFiles`) is pure;
 * `readDisks` only reads files under a sysfs root, so tests run on a fixture tree.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { escapeText, type DiskFacts, type PartitionFacts } from "./disk-facts.ts";

/** Block devices that are not disks to wipe or partition. */
export const NOT_DISKS = /^(loop|ram|zram|sr|fd|nbd|dm-|md)\d*/;

/** The sysfs files of one disk, relative to /sys/block/<name>/ (undefined: absent). */
export type DiskFiles = Readonly<Record<string, string | undefined>>;

export const DISK_FILES = [
  "size",
  "ro",
  "removable",
  "serial",
  "queue/rotational",
  "queue/logical_block_size",
  "queue/discard_granularity",
  "queue/discard_max_bytes",
  "queue/discard_zeroes_data",
  "queue/write_zeroes_max_bytes",
  "device/model",
  "device/serial",
  "device/vendor",
] as const;

const int = (v: string | undefined, dflt = 0): number => {
  const t = (v ?? "").trim();
  return /^\d+$/.test(t) ? Number(t) : dflt;
};

/** One disk from its sysfs files; undefined when the entry is not a disk (see NOT_DISKS) or is empty. */
export function diskFromFiles(name: string, files: DiskFiles, partitions: readonly PartitionFacts[] = [], holders: readonly string[] = []): DiskFacts | undefined {
  if (NOT_DISKS.test(name)) return undefined;
  // /sys/block/<name>/size counts 512-byte sectors whatever the logical block size.
  const sizeBytes = int(files.size) * 512;
  if (sizeBytes === 0) return undefined;
  const nvme = /^nvme\d+n\d+$/.test(name);
  const discardMaxBytes = int(files["queue/discard_max_bytes"]);
  const vendor = escapeText(files["device/vendor"]);
  const model = escapeText(files["device/model"]);
  return {
    name,
    path: `/dev/${name}`,
    sizeBytes,
    logicalBlockSize: int(files["queue/logical_block_size"], 512),
    // Unknown counts as rotating: the planner then never trusts discard it cannot see.
    rotational: int(files["queue/rotational"], 1) === 1,
    discard: discardMaxBytes > 0,
    discardGranularity: int(files["queue/discard_granularity"]),
    discardMaxBytes,
    discardZeroesData: int(files["queue/discard_zeroes_data"]) === 1,
    writeZeroes: int(files["queue/write_zeroes_max_bytes"]) > 0,
    nvme,
    nvmeController: nvme ? name.replace(/n\d+$/, "") : undefined,
    removable: int(files.removable) === 1,
    readOnly: int(files.ro) === 1,
    model: [vendor, model].filter((s) => s !== "").join(" "),
    serial: escapeText(files.serial ?? files["device/serial"]),
    partitions,
    holders,
  };
}

const text = (p: string): Promise<string | undefined> =>
  readFile(p, "utf8").then(
    (s) => s,
    () => undefined,
  );
const list = (p: string): Promise<string[]> =>
  readdir(p).then(
    (l) => l.sort(),
    () => [],
  );

async function partitionsOf(dir: string, name: string): Promise<PartitionFacts[]> {
  const out: PartitionFacts[] = [];
  for (const child of await list(dir)) {
    if (!child.startsWith(name)) continue;
    const number = int(await text(join(dir, child, "partition")), -1);
    if (number < 0) continue;
    out.push({ name: child, path: `/dev/${child}`, number, sizeBytes: int(await text(join(dir, child, "size"))) * 512 });
  }
  return out.sort((a, b) => a.number - b.number);
}

/** Every disk under `<sysRoot>/block`, sorted by name. */
export async function readDisks(sysRoot = "/sys"): Promise<DiskFacts[]> {
  const dir = join(sysRoot, "block");
  const disks = await Promise.all(
    (await list(dir))
      .filter((n) => !NOT_DISKS.test(n))
      .map(async (name) => {
        const d = join(dir, name);
        const files: Record<string, string | undefined> = {};
        await Promise.all(DISK_FILES.map(async (f) => void (files[f] = await text(join(d, f)))));
        const parts = await partitionsOf(d, name);
        const holders = (await Promise.all([d, ...parts.map((p) => join(d, p.name))].map((p) => list(join(p, "holders"))))).flat();
        return diskFromFiles(name, files, parts, [...new Set(holders)].sort());
      }),
  );
  return disks.filter((d): d is DiskFacts => d !== undefined).sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
}
