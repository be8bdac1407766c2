/**
 * The EFI system partition(s) of this install, as an HD() node names each: the ESP is
 * the filesystem mounted at <root>/boot/efi (metal-stack's layouts mount it there), FAT;
 * on a plain layout one GPT partition, on a mirrored one an md RAID 1 whose members
 * (/sys/block/mdX/slaves) are one partition per disk, the superblock at the end
 * (metadata 1.0 or 0.90) so that firmware reads each member as plain FAT.
 *
 * For each partition: its number, start and size from sysfs (/sys/class/block/<part>/
 * {partition,start,size}, 512-byte units whatever the disk's logical block size), the
 * disk's logical block size (queue/logical_block_size), and its unique partition GUID
 * from the GPT entry on the disk (primary header at LBA 1, the backup at the last LBA
 * when the primary is damaged), the entry's LBAs checked against the kernel's. efivar
 * builds efibootmgr's HD() from the same GPT entry (efivar src/disk.c).
 * The only I/O: the mount table, sysfs under `sysRoot`, the disk's first or last blocks.
 */
import { open, readFile, readdir, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { AgentError } from "../../platform/errors.ts";
import { mountAt } from "../../platform/fs/mountinfo.ts";
import { MBR_TYPE_EFI_PARTITION_TABLE_HEADER, SIGNATURE_TYPE_GUID, type HardDrive } from "./device-path.ts";
import { GptError, gptEntry, parseGptHeader, type GptEntry } from "./gpt.ts";

export interface EspSource {
  /** The mounted target root (the disks stage's); the ESP is mounted at <root>/boot/efi. */
  readonly root: string;
  /** Default /sys. */
  readonly sysRoot?: string;
  /** Where the disks' device nodes are (default /dev). */
  readonly devRoot?: string;
  /** /proc/self/mountinfo's text (default: read it). */
  readonly readMountInfo?: () => Promise<string>;
}

export interface EspPartition {
  /** The kernel's name: vda1, nvme0n1p1. */
  readonly name: string;
  readonly disk: string;
  readonly hd: HardDrive;
}

export interface Esp {
  /** Where it is mounted: <root>/boot/efi. */
  readonly dir: string;
  /** The mounted block device's kernel name: vda1, md127. */
  readonly device: string;
  /** Sorted by name; one on a plain layout, one per disk on a mirror. */
  readonly partitions: readonly EspPartition[];
}

/** A partition as sysfs shows it. */
export interface PartitionSysfs {
  readonly name: string;
  readonly disk: string;
  readonly number: number;
  /** 512-byte sectors. */
  readonly start: bigint;
  readonly size: bigint;
  readonly logicalBlockSize: number;
}

const fail = (message: string, fields: Record<string, unknown> = {}) => new AgentError("boot_order", `UEFI boot order: ${message}`, fields);

/** HD() of a partition: its GPT entry's LBAs must be the kernel's (else the table on the disk is not the one in use). Pure. */
export function espHardDrive(p: PartitionSysfs, e: GptEntry, where: string): HardDrive {
  const lbs = BigInt(p.logicalBlockSize);
  const size = e.lastLba - e.firstLba + 1n;
  if (e.firstLba * lbs !== p.start * 512n || size * lbs !== p.size * 512n)
    throw new GptError(
      `${where}: entry ${p.number} spans LBA ${e.firstLba}..${e.lastLba} of ${p.logicalBlockSize} bytes, the kernel's ${p.name} starts at sector ${p.start} with ${p.size} sectors of 512 bytes (the table on the disk is not the one the kernel uses)`,
    );
  return { partitionNumber: p.number, start: e.firstLba, size, signature: e.uniqueGuid, mbrType: MBR_TYPE_EFI_PARTITION_TABLE_HEADER, signatureType: SIGNATURE_TYPE_GUID };
}

const text = (p: string): Promise<string | undefined> =>
  readFile(p, "utf8").then(
    (s) => s.trim(),
    () => undefined,
  );

async function readAt(path: string, offset: bigint, length: number): Promise<Uint8Array> {
  const fh = await open(path, "r");
  try {
    const buf = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const r = await fh.read(buf, got, length - got, Number(offset) + got);
      if (r.bytesRead === 0) break;
      got += r.bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}

async function partitionSysfs(dir: string): Promise<PartitionSysfs> {
  const name = basename(dir);
  const diskDir = dirname(dir);
  const num = (v: string | undefined, what: string): bigint => {
    if (v === undefined || !/^\d+$/.test(v)) throw fail(`${join(dir, what)}: ${v === undefined ? "missing" : JSON.stringify(v)}, expected a number`);
    return BigInt(v);
  };
  return {
    name,
    disk: basename(diskDir),
    number: Number(num(await text(join(dir, "partition")), "partition")),
    start: num(await text(join(dir, "start")), "start"),
    size: num(await text(join(dir, "size")), "size"),
    logicalBlockSize: Number(num(await text(join(diskDir, "queue/logical_block_size")), "../queue/logical_block_size")),
  };
}

/** The GPT entry of a partition, from the primary table or, when that one is damaged, the backup. */
async function gptEntryOf(p: PartitionSysfs, devRoot: string, diskSectors: bigint): Promise<GptEntry> {
  const dev = join(devRoot, p.disk);
  const lbs = BigInt(p.logicalBlockSize);
  const tryAt = async (lba: bigint, which: string): Promise<GptEntry> => {
    const where = `${which} GPT of ${dev}`;
    const h = parseGptHeader(await readAt(dev, lba * lbs, p.logicalBlockSize), where);
    if (h.myLba !== lba) throw new GptError(`${where}: MyLBA ${h.myLba}, read at LBA ${lba}`);
    return gptEntry(h, await readAt(dev, h.entryLba * lbs, h.entries * h.entrySize), p.number - 1, where);
  };
  try {
    return await tryAt(1n, "primary");
  } catch (primary) {
    if (!(primary instanceof GptError)) throw fail(`cannot read ${dev}: ${(primary as Error).message}`);
    try {
      return await tryAt((diskSectors * 512n) / lbs - 1n, "backup");
    } catch (backup) {
      if (!(backup instanceof GptError)) throw fail(`cannot read ${dev}: ${(backup as Error).message}`);
      throw fail(`the ESP partition ${p.name} has no readable GPT entry: ${primary.message}; ${backup.message}`);
    }
  }
}

const isFile = (p: string) => text(p).then((v) => v !== undefined);

/** The partitions a block device stands for: itself, or an md RAID 1's members. */
async function espPartitionDirs(node: string, device: string): Promise<string[]> {
  if (await isFile(join(node, "partition"))) {
    if (await isFile(join(dirname(node), "md/level")))
      throw fail(`the ESP ${device} is a partition of the md array ${basename(dirname(node))}: firmware cannot read inside an array`);
    return [node];
  }
  const level = await text(join(node, "md/level"));
  if (level === undefined) throw fail(`the ESP ${device} is neither a partition nor an md RAID 1 of partitions: firmware cannot boot from it`);
  const meta = await text(join(node, "md/metadata_version"));
  if (level !== "raid1" || (meta !== "1.0" && meta !== "0.90"))
    throw fail(
      `the ESP ${device} is md ${level} with metadata ${meta ?? "unknown"}: firmware reads a mirror member as FAT only for RAID 1 with the superblock at the end (metadata 1.0)`,
    );
  const slaves = (await readdir(join(node, "slaves")).catch(() => [])).sort();
  const dirs = await Promise.all(slaves.map((s) => realpath(join(node, "slaves", s))));
  const parts: string[] = [];
  for (const d of dirs) if (await isFile(join(d, "partition"))) parts.push(d);
  if (parts.length === 0) throw fail(`the ESP ${device} (md RAID 1) has no member that is a partition (members: ${slaves.join(", ") || "none"})`);
  return parts;
}

export async function findEsp(s: EspSource): Promise<Esp> {
  const dir = resolve(s.root, "boot/efi");
  const sys = s.sysRoot ?? "/sys";
  const m = mountAt(await (s.readMountInfo ?? (() => readFile("/proc/self/mountinfo", "utf8")))(), dir);
  if (!m) throw fail(`no ESP: nothing is mounted at ${dir} (the layout's EFI system partition is mounted there)`);
  if (m.fstype !== "vfat" && m.fstype !== "msdos") throw fail(`the ESP at ${dir} is ${m.fstype} (${m.source}), firmware reads only FAT`);
  let node: string;
  try {
    node = await realpath(join(sys, "dev/block", `${m.major}:${m.minor}`));
  } catch (e) {
    throw fail(`the ESP at ${dir} (${m.source}, device ${m.major}:${m.minor}) is not a block device in ${join(sys, "dev/block")}: ${(e as Error).message}`);
  }
  const device = basename(node);
  const partitions: EspPartition[] = [];
  for (const d of await espPartitionDirs(node, device)) {
    const p = await partitionSysfs(d);
    const diskSectors = BigInt((await text(join(dirname(d), "size"))) ?? "0");
    try {
      partitions.push({ name: p.name, disk: p.disk, hd: espHardDrive(p, await gptEntryOf(p, s.devRoot ?? "/dev", diskSectors), `GPT of ${p.disk}`) });
    } catch (e) {
      throw e instanceof GptError ? fail(e.message) : e;
    }
  }
  return { dir, device, partitions: partitions.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true })) };
}
