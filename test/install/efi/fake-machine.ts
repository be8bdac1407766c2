/**
 * A machine after the disks stage, as files: the target root with the ESP's files, a
 * sysfs tree (/sys/dev/block/<maj:min> links, disks with partitions, an md mirror with
 * its slaves), the disks' device nodes as sparse images holding sgdisk's GPT
 * (gpt-vectors.ts), and the mountinfo text with the ESP mounted at <root>/boot/efi.
 */
import { mkdirSync, mkdtempSync, openSync, closeSync, writeSync, ftruncateSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { GPT_VDA, GPT_VDB, entryArray, headerBlock, vectorPartitions, type GptVector } from "./gpt-vectors.ts";

export interface FakeDisk {
  readonly name: string;
  readonly major: number;
  readonly gpt: GptVector;
  /** Default 512. The GPT is placed at this block size's LBAs (its LBAs then count these blocks). */
  readonly logicalBlockSize?: number;
  /** The primary header zeroed: only the backup is readable. */
  readonly damagePrimary?: boolean;
  /** sysfs start of partition 1 in 512-byte sectors (default: the GPT's, 2048 * lbs / 512). */
  readonly sysStart?: number;
}

export interface FakeMachineOptions {
  readonly disks?: readonly FakeDisk[];
  /** What is mounted at <root>/boot/efi: a partition (vda1) or an md mirror of partitions; none: nothing. */
  readonly esp?: { readonly partition: string } | { readonly md: string; readonly members: readonly string[]; readonly level?: string; readonly metadata?: string } | undefined;
  readonly espFstype?: string;
  /** Files on the ESP, relative paths, e.g. EFI/BOOT/BOOTX64.EFI (each gets some bytes). */
  readonly loaders?: readonly string[];
}

export interface FakeMachine {
  readonly base: string;
  readonly root: string;
  readonly esp: string;
  readonly sys: string;
  readonly dev: string;
  readonly mountinfo: string;
}

export const VDA: FakeDisk = { name: "vda", major: 254, gpt: GPT_VDA };
export const VDB: FakeDisk = { name: "vdb", major: 253, gpt: GPT_VDB };

function writeAt(fd: number, offset: number, b: Uint8Array): void {
  writeSync(fd, b, 0, b.length, offset);
}

export function fakeMachine(o: FakeMachineOptions = {}): FakeMachine {
  const base = mkdtempSync(join(tmpdir(), "mh-esp-"));
  const root = join(base, "target");
  const esp = join(root, "boot/efi");
  const sys = join(base, "sys");
  const dev = join(base, "dev");
  for (const d of [esp, join(sys, "dev/block"), dev]) mkdirSync(d, { recursive: true });
  for (const f of o.loaders ?? []) {
    mkdirSync(dirname(join(esp, f)), { recursive: true });
    writeFileSync(join(esp, f), "MZ loader");
  }
  const partDirs = new Map<string, { dir: string; devno: string }>();
  for (const [i, d] of (o.disks ?? [VDA]).entries()) {
    const lbs = d.logicalBlockSize ?? 512;
    const diskDir = join(sys, `devices/pci0000:00/0000:00:0${i + 4}.0/virtio${i + 1}/block`, d.name);
    mkdirSync(join(diskDir, "queue"), { recursive: true });
    const sectors512 = (d.gpt.sectors * lbs) / 512;
    writeFileSync(join(diskDir, "size"), `${sectors512}\n`);
    writeFileSync(join(diskDir, "queue/logical_block_size"), `${lbs}\n`);
    symlinkSync(diskDir, join(sys, "dev/block", `${d.major}:0`));
    for (const { number: n, first, last } of vectorPartitions(d.gpt)) {
      const name = `${d.name}${n}`;
      const pd = join(diskDir, name);
      mkdirSync(pd);
      writeFileSync(join(pd, "partition"), `${n}\n`);
      writeFileSync(join(pd, "start"), `${n === 1 && d.sysStart !== undefined ? d.sysStart : (first * lbs) / 512}\n`);
      writeFileSync(join(pd, "size"), `${((last - first + 1) * lbs) / 512}\n`);
      const devno = `${d.major}:${n}`;
      symlinkSync(pd, join(sys, "dev/block", devno));
      partDirs.set(name, { dir: pd, devno });
    }
    const fd = openSync(join(dev, d.name), "w");
    try {
      ftruncateSync(fd, d.gpt.sectors * lbs);
      if (!d.damagePrimary) writeAt(fd, lbs, headerBlock(d.gpt.primary, lbs));
      writeAt(fd, 2 * lbs, entryArray(d.gpt));
      writeAt(fd, (d.gpt.sectors - 1) * lbs, headerBlock(d.gpt.backup, lbs));
      writeAt(fd, (d.gpt.sectors - 33) * lbs, entryArray(d.gpt));
    } finally {
      closeSync(fd);
    }
  }
  let mountinfo = `40 1 ${partDirs.get("vda2")?.devno ?? "254:2"} / ${root} rw,relatime shared:1 - ext4 /dev/vda2 rw\n`;
  if (o.esp && "partition" in o.esp) {
    mountinfo += `41 40 ${partDirs.get(o.esp.partition)!.devno} / ${esp} rw,relatime shared:2 - ${o.espFstype ?? "vfat"} /dev/${o.esp.partition} rw,fmask=0022\n`;
  } else if (o.esp) {
    const md = join(sys, "devices/virtual/block", o.esp.md);
    mkdirSync(join(md, "md"), { recursive: true });
    mkdirSync(join(md, "slaves"));
    writeFileSync(join(md, "md/level"), `${o.esp.level ?? "raid1"}\n`);
    writeFileSync(join(md, "md/metadata_version"), `${o.esp.metadata ?? "1.0"}\n`);
    for (const m of o.esp.members) symlinkSync(partDirs.get(m)?.dir ?? join(sys, "devices/virtual/block", m), join(md, "slaves", m));
    symlinkSync(md, join(sys, "dev/block", "9:127"));
    mountinfo += `41 40 9:127 / ${esp} rw,relatime shared:2 - ${o.espFstype ?? "vfat"} /dev/md/esp rw\n`;
  }
  return { base, root, esp, sys, dev, mountinfo };
}
