/**
 * End to end, the disk stages in QEMU: the lab kernel with our initramfs (the real
 * Debian tools from initramfs/tools.list), a small extra cpio in front carrying this
 * test's script as rdinit, two virtio disks and an NVMe disk seeded on the host with a
 * GPT, md superblocks, an LVM PV/VG and a filesystem, and a read-only disk. Phase 1
 * wipes: the read-only disk fails loudly with its name, the others end empty. Phase 2
 * builds a RAID 1 + LVM layout and a single-disk layout. Every check of the disks runs
 * on the host after the VM powered off, on the image files and on read-only loop
 * devices this test creates and detaches. Needs root, QEMU, the built kernel and
 * initramfs (`make initramfs build/lab/vmlinux-<kver>`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, openSync, closeSync, writeSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { LAB_INITRD, LAB_KERNEL } from "../../lab/base/kernel.ts";
import {
  attachLoop,
  bootVm as boot,
  detachLoop,
  guestScript,
  markers,
  mdSuperblock12,
  MD_SB_1_2_OFFSET,
  parseSgdiskPrint,
  probe,
  sh,
  signatures,
  type GuestDisk,
  type VmRun,
} from "./disks-seed.ts";

const bootVm = (name: string, disks: readonly GuestDisk[], script: string, files: Record<string, string> = {}) =>
  boot({ name, dir, kernel: LAB_KERNEL, initrd: LAB_INITRD, disks, script, files, boundMs: BOOT_BOUND_MS });

const MiB = 1024 * 1024;
const TOOLS = ["qemu-system-x86_64", "sgdisk", "mdadm", "lvm", "losetup", "blkid", "wipefs", "mkfs.ext4", "debugfs"];
const missing = [
  process.getuid?.() === 0 ? undefined : "root",
  ...TOOLS.map((t) => (Bun.which(t, { PATH: `${process.env.PATH}:/usr/sbin:/sbin` }) ? undefined : t)),
  existsSync(LAB_KERNEL) ? undefined : `${LAB_KERNEL} (make build/lab/vmlinux-<kver>)`,
  existsSync(LAB_INITRD) ? undefined : `${LAB_INITRD} (make initramfs)`,
].filter((m) => m !== undefined);
if (missing.length > 0) console.warn(`e2e disks skipped: missing ${missing.join(", ")}`);
// Under CI a skip is a failure.
if (missing.length > 0 && process.env.CI === "true") {
  test("e2e disks has what it needs (CI)", () => {
    expect(missing).toEqual([]);
  });
}

const BOOT_BOUND_MS = 240_000;
const id = randomBytes(3).toString("hex");
const dir = resolve(`.lab/mhd-${id}`);
const VG = `mht${id}`;
const img = (n: string) => `${dir}/${n}.img`;
const loops: string[] = [];
const loop = (file: string, offset = 0, size?: number, rw = false): string => {
  const l = attachLoop(file, offset, size, rw);
  loops.push(l);
  return l;
};
const unloop = (l: string): void => {
  detachLoop(l);
  loops.splice(loops.indexOf(l), 1);
};
/** Host LVM with its own empty system dir: no host lvm.conf, no backups written to /etc. */
const lvm = (args: string[]): string => sh(["lvm", ...args, "--config", "backup { backup=0 archive=0 } global { use_lvmlockd=0 }"], { LVM_SYSTEM_DIR: `${dir}/lvm-etc` });

function writeAt(file: string, offset: number, data: Uint8Array): void {
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, data, 0, data.length, offset);
  } finally {
    closeSync(fd);
  }
}

const parts = (file: string) => parseSgdiskPrint(sh(["sgdisk", "-p", file]));

interface Seeded {
  /** Byte offsets of the seeded partitions. */
  readonly offsets: Record<string, number[]>;
  /** What the host finds there right after seeding: disk signatures, then each partition's. */
  readonly found: Record<string, string[]>;
}

/** Host seeding: a GPT with an md member and an LVM partition on each virtio image, ext4 on the NVMe and read-only images. */
function seed(): Seeded {
  const offsets: Record<string, number[]> = {};
  const found: Record<string, string[]> = {};
  const setUuid = randomBytes(16);
  for (const [i, n] of ["vda", "vdb"].entries()) {
    sh(["truncate", "-s", `${256 * MiB}`, img(n)]);
    sh(["sgdisk", "--new=1:0:+64M", "--typecode=1:fd00", "--change-name=1:oldraid", "--new=2:0:0", "--typecode=2:8e00", "--change-name=2:oldlvm", img(n)]);
    const [p1, p2] = parts(img(n)) as [ReturnType<typeof parts>[number], ReturnType<typeof parts>[number]];
    writeAt(img(n), p1.start * 512 + MD_SB_1_2_OFFSET, mdSuperblock12(p1.end - p1.start + 1, i, setUuid, "old:0"));
    const l = loop(img(n), p2.start * 512, p2.sizeBytes, true);
    lvm(["pvcreate", "-ff", "-y", "--devices", l, l]);
    lvm(["vgcreate", "--devices", l, `old${id}${n}`, l]);
    unloop(l);
    offsets[n] = [p1.start * 512, p2.start * 512];
  }
  sh(["truncate", "-s", `${128 * MiB}`, img("nvme")]);
  sh(["sgdisk", "--new=1:0:0", "--typecode=1:8300", img("nvme")]);
  const n1 = parts(img("nvme"))[0] as ReturnType<typeof parts>[number];
  const l = loop(img("nvme"), n1.start * 512, n1.sizeBytes, true);
  sh(["mkfs.ext4", "-q", "-F", "-L", "oldroot", l]);
  unloop(l);
  sh(["truncate", "-s", `${64 * MiB}`, img("ro")]);
  sh(["mkfs.ext4", "-q", "-F", "-L", "keepme", img("ro")]);
  writeFileSync(img("hdd"), randomBytes(32 * MiB));
  offsets.nvme = [n1.start * 512];
  for (const [n, offs] of Object.entries(offsets))
    found[n] = [...signatures(img(n)).map((s) => s.split(/\s+/)[0] as string), ...offs.map((o) => probe(img(n), o).TYPE ?? "nothing")];
  return { offsets, found };
}

const VIRTIO: GuestDisk[] = [
  // discard=ignore: the disk accepts discard and keeps every byte (the "erase that erased nothing").
  { file: "", kind: "virtio", serial: "mht-a", discard: "ignore" },
  { file: "", kind: "virtio", serial: "mht-b", discard: "unmap" },
  { file: "", kind: "nvme", serial: "mht-nvme", discard: "unmap" },
];
const pvDisks: GuestDisk[] = [
  { file: "", kind: "virtio", serial: "mht-pv1", plain: true },
  { file: "", kind: "virtio", serial: "mht-pv2", plain: true },
];
const machine = (withReadOnly: boolean): GuestDisk[] => [
  { ...(VIRTIO[0] as GuestDisk), file: img("vda") },
  { ...(VIRTIO[1] as GuestDisk), file: img("vdb") },
  ...(withReadOnly
    ? [
        { file: img("ro"), kind: "virtio" as const, serial: "mht-ro", readOnly: true },
        // A "hard disk": no discard, no write-zeroes; random bytes everywhere, for METAL_WIPE=overwrite.
        { file: img("hdd"), kind: "virtio" as const, serial: "mht-hdd", plain: true },
      ]
    : [
        { ...(pvDisks[0] as GuestDisk), file: img("pv1") },
        { ...(pvDisks[1] as GuestDisk), file: img("pv2") },
      ]),
  { ...(VIRTIO[2] as GuestDisk), file: img("nvme") },
];

describe.skipIf(missing.length > 0)("QEMU disks: wipe, then RAID 1 + LVM and single-disk layouts", () => {
  let wipe: VmRun;
  let seeded: Seeded;
  beforeAll(async () => {
    mkdirSync(`${dir}/lvm-etc`, { recursive: true });
    seeded = seed();
    wipe = await bootVm(
      "wipe",
      machine(true),
      guestScript(
        ["vda", "vdb", "vdc", "vdd", "nvme0n1"],
        [
          { name: "list", argv: "metal-hammer disk list --json" },
          { name: "wipe", argv: "metal-hammer disk wipe --yes --json" },
          { name: "overwrite", argv: "metal-hammer disk wipe --yes --json --mode overwrite --disks vdd" },
        ],
      ),
    );
  }, BOOT_BOUND_MS + 60_000);

  afterAll(() => {
    for (const l of [...loops]) unloop(l);
    for (const n of ["vda", "vdb", "nvme", "ro", "hdd", "pv1", "pv2"]) rmSync(img(n), { force: true });
  });

  test("the seeds were there before the wipe (GPT at both ends, md member, LVM PV, ext4), also in the guest's view", () => {
    expect(seeded.found).toEqual({
      vda: ["gpt", "gpt", "PMBR", "linux_raid_member", "LVM2_member"],
      vdb: ["gpt", "gpt", "PMBR", "linux_raid_member", "LVM2_member"],
      nvme: ["gpt", "gpt", "PMBR", "ext4"],
    });
    const m = markers(wipe.lines);
    const list = JSON.parse(m.get("list")?.text ?? "[]") as { name: string; readOnly: boolean; nvme: boolean; partitions: unknown[] }[];
    expect(list.map((d) => [d.name, d.readOnly, d.nvme, d.partitions.length])).toEqual([
      ["nvme0n1", false, true, 1],
      ["vda", false, false, 2],
      ["vdb", false, false, 2],
      ["vdc", true, false, 0],
      ["vdd", false, false, 0],
    ]);
  });

  test("a read-only disk makes the wipe fail loudly with its name (exit 60); every other disk is wiped", () => {
    expect(wipe.timedOut).toBe(false);
    const m = markers(wipe.lines);
    expect(m.get("done")).toBeDefined();
    expect(wipe.lines.filter((l) => l.includes("MHT modprobe-failed"))).toEqual([]);
    expect(m.get("wipe")?.exit).toBe(60);
    expect(wipe.lines.join("\n")).toMatch(/metal-hammer: wipe failed: \/dev\/vdc \(no method\): the device is read-only/);
    const report = JSON.parse(m.get("wipe")?.text ?? "{}") as { disks: { disk: string; outcome: string; method: string; attempts: { method: string; ok: boolean }[] }[] };
    const by = Object.fromEntries(report.disks.map((d) => [d.disk, d]));
    expect(by.vdc?.outcome).toBe("failed");
    expect([by.vda?.outcome, by.vdb?.outcome, by.vdd?.outcome, by.nvme0n1?.outcome]).toEqual(["wiped", "wiped", "wiped", "wiped"]);
    expect(by.vdd?.method).toBe("metadata");
    // QEMU's discard=ignore: blkdiscard succeeds, the signatures stay, verification says so and the next method runs.
    expect(by.vda?.attempts.find((a) => a.method === "discard")?.ok).toBe(false);
    expect(by.vda?.method).toBe("metadata");
    expect(by.vdb?.method).toBe("discard");
  });

  test("METAL_WIPE=overwrite on a disk without discard writes every byte, with a progress line", () => {
    const m = markers(wipe.lines);
    expect(m.get("overwrite")?.exit).toBe(0);
    const r = JSON.parse(m.get("overwrite")?.text ?? "{}") as { mode: string; disks: { disk: string; method: string; zeroesChecked: boolean }[] };
    expect(r.mode).toBe("overwrite");
    expect(r.disks.map((d) => [d.disk, d.method, d.zeroesChecked])).toEqual([["vdd", "overwrite", true]]);
    const progress = wipe.lines.filter((l) => l.includes('"event":"disk.wipe.progress"') && l.includes('"disk":"vdd"'));
    expect(progress.at(-1)).toContain('"percent":100');
    // On the host: the 32 MiB of random bytes are all zero now.
    expect(readFileSync(img("hdd")).every((b) => b === 0)).toBe(true);
  });

  test("after the wipe the host finds nothing on the images, also not at the old partitions' offsets", () => {
    for (const n of ["vda", "vdb", "nvme"]) expect({ n, s: signatures(img(n)) }).toEqual({ n, s: [] });
    // The old md superblock, LVM label and ext4 inside the old partitions are gone too (they would come back with a new table).
    for (const [n, offs] of Object.entries(seeded.offsets)) for (const o of offs) expect({ n, o, found: probe(img(n), o) }).toEqual({ n, o, found: {} });
    expect(probe(img("ro")).LABEL).toBe("keepme");
  });

  describe("layouts", () => {
    let apply: VmRun;
    beforeAll(async () => {
      const raid = readFileSync(new URL("../fixtures/disk/e2e/raid1-lvm.json", import.meta.url), "utf8").replaceAll("VGNAME", VG);
      const single = readFileSync(new URL("../fixtures/disk/e2e/single-nvme.json", import.meta.url), "utf8");
      const lvmOnly = readFileSync(new URL("../fixtures/disk/e2e/lvm-raid1-striped.json", import.meta.url), "utf8").replaceAll("VGNAME", `${VG}r`);
      for (const n of ["pv1", "pv2"]) sh(["truncate", "-s", `${48 * MiB}`, img(n)]);
      apply = await bootVm(
        "apply",
        machine(false),
        guestScript(
          ["vda", "vdb", "vdc", "vdd", "nvme0n1"],
          [
            { name: "plan", argv: "metal-hammer disk plan /raid1-lvm.json --target /t1" },
            { name: "apply1", argv: "metal-hammer disk apply /raid1-lvm.json --target /t1 --unmount --yes --json" },
            { name: "apply2", argv: "metal-hammer disk apply /single-nvme.json --target /t2 --unmount --yes --json" },
            { name: "apply3", argv: "metal-hammer disk apply /lvm-raid1-striped.json --target /t3 --unmount --yes --json" },
            { name: "stop", argv: `lvm vgchange -an ${VG} ${VG}r && mdadm --stop /dev/md0 /dev/md1` },
          ],
        ),
        { "raid1-lvm.json": raid, "single-nvme.json": single, "lvm-raid1-striped.json": lvmOnly },
      );
    }, BOOT_BOUND_MS + 60_000);

    test("both layouts are applied in the VM (exit 0) and report a root UUID", () => {
      expect(apply.timedOut).toBe(false);
      const m = markers(apply.lines);
      expect(m.get("plan")?.exit).toBe(0);
      expect(m.get("plan")?.text).toContain("--metadata=1.0");
      expect(m.get("apply1")?.exit).toBe(0);
      expect(m.get("apply2")?.exit).toBe(0);
      expect(m.get("apply3")?.exit).toBe(0);
      expect(m.get("stop")?.exit).toBe(0);
    });

    test("RAID 1 + LVM: the partitions, both mirrors, the ESP readable as plain FAT, the volume group, root and /var/lib", () => {
      const a1 = JSON.parse(markers(apply.lines).get("apply1")?.text ?? "{}") as { rootUuid: string };
      const arrays: Record<string, string>[] = [];
      for (const n of ["vda", "vdb"]) {
        const p = parts(img(n));
        expect(p.map((x) => [x.number, x.code, x.name])).toEqual([
          [1, "FD00", "efi"],
          [2, "FD00", "lvm"],
        ]);
        expect(p[0]?.sizeBytes).toBe(64 * MiB);
        const [p1, p2] = p as [ReturnType<typeof parts>[number], ReturnType<typeof parts>[number]];
        // metadata 1.0: the superblock at the end, FAT at the start, as firmware reads it.
        expect(probe(img(n), p1.start * 512, "filesystem")).toMatchObject({ TYPE: "vfat", LABEL: "efi" });
        for (const q of [p1, p2]) {
          const l = loop(img(n), q.start * 512, q.sizeBytes);
          const ex = sh(["mdadm", "--examine", l]);
          unloop(l);
          arrays.push(
            Object.fromEntries(
              ex
                .split("\n")
                .map((x) => x.split(" : ").map((s) => s.trim()))
                .filter((kv) => kv.length === 2),
            ) as Record<string, string>,
          );
        }
      }
      expect(arrays.map((a) => [a.Version, a["Raid Level"], a["Raid Devices"]])).toEqual([
        ["1.0", "raid1", "2"],
        ["1.2", "raid1", "2"],
        ["1.0", "raid1", "2"],
        ["1.2", "raid1", "2"],
      ]);
      expect(arrays[0]?.["Array UUID"]).toBe(arrays[2]?.["Array UUID"] as string);
      expect(arrays[1]?.["Array UUID"]).toBe(arrays[3]?.["Array UUID"] as string);
      // The array's data on vda2 (RAID 1: a full copy) starts at its data offset: that is the PV.
      const p2 = parts(img("vda"))[1] as ReturnType<typeof parts>[number];
      const dataOffset = Number(/^(\d+) sectors/.exec(arrays[1]?.["Data Offset"] ?? "")?.[1]);
      const pv = loop(img("vda"), p2.start * 512 + dataOffset * 512);
      try {
        expect(probe(pv).TYPE).toBe("LVM2_member");
        const report = (what: string, fields: string) =>
          (
            JSON.parse(lvm([what, "--readonly", "--devices", pv, "--units", "b", "--nosuffix", "--reportformat", "json", "-o", fields])) as {
              report: Record<string, Record<string, string>[]>[];
            }
          ).report[0] as Record<string, Record<string, string>[]>;
        const vg = report("vgs", "vg_name,vg_extent_size,vg_tags").vg?.[0] as Record<string, string>;
        expect(vg.vg_name).toBe(VG);
        expect(vg.vg_tags).toBe("e2e");
        const peStart = Number((report("pvs", "pv_name,pe_start").pv?.[0] as Record<string, string>).pe_start);
        const lvs = report("lvs", "lv_name,lv_size,segtype,seg_pe_ranges").lv as Record<string, string>[];
        expect(lvs.map((x) => [x.lv_name, x.segtype])).toEqual([
          ["root", "linear"],
          ["varlib", "linear"],
        ]);
        expect(Number(lvs[0]?.lv_size)).toBe(96 * MiB);
        const fsAt = (lv: Record<string, string>) => peStart + Number(/:(\d+)-/.exec(lv.seg_pe_ranges as string)?.[1]) * Number(vg.vg_extent_size);
        const root = probe(pv, fsAt(lvs[0] as Record<string, string>));
        expect(root).toMatchObject({ TYPE: "ext4", LABEL: "root" });
        expect(root.UUID).toBe(a1.rootUuid);
        expect(probe(pv, fsAt(lvs[1] as Record<string, string>))).toMatchObject({ TYPE: "ext4", LABEL: "varlib" });
        // disk.json (metal-hammer's legacy file) inside the root filesystem, read with debugfs (read-only).
        const rootLoop = loop(pv, fsAt(lvs[0] as Record<string, string>), 96 * MiB);
        const diskJson = JSON.parse(sh(["debugfs", "-R", "cat /etc/metal/disk.json", rootLoop])) as {
          Partitions: { Label: string; Filesystem: string; Properties: { UUID: string } }[];
        };
        const fstab = sh(["debugfs", "-R", "cat /etc/fstab", rootLoop]);
        unloop(rootLoop);
        expect(diskJson.Partitions.map((p) => [p.Label, p.Filesystem])).toEqual([
          ["root", "ext4"],
          ["efi", "vfat"],
          ["varlib", "ext4"],
        ]);
        expect(diskJson.Partitions[0]?.Properties.UUID).toBe(a1.rootUuid);
        expect(fstab).toContain(`UUID=${a1.rootUuid} / ext4 defaults 0 1`);
        expect(fstab).toMatch(/ \/var\/lib ext4 noatime 0 2/);
      } finally {
        unloop(pv);
      }
    });

    test("single NVMe disk: four partitions with their types and names, vfat, swap, ext3 and ext4 with labels", () => {
      const a2 = JSON.parse(markers(apply.lines).get("apply2")?.text ?? "{}") as { rootUuid: string };
      const p = parts(img("nvme"));
      expect(p.map((x) => [x.number, x.code, x.name, x.sizeBytes / MiB])).toEqual([
        [1, "EF00", "efi", 40],
        [2, "8300", "swap", 16],
        [3, "8300", "boot", 24],
        [4, "8300", "root", expect.any(Number)],
      ]);
      const fs = p.map((x) => probe(img("nvme"), x.start * 512));
      expect(fs.map((f) => [f.TYPE, f.LABEL])).toEqual([
        ["vfat", "efi"],
        ["swap", "swap"],
        ["ext3", "boot"],
        ["ext4", "root"],
      ]);
      expect(fs[3]?.UUID).toBe(a2.rootUuid);
    });

    test("LVM raid1 and striped volumes over two whole disks (dm-raid in the initramfs): segment types, both legs, ext4 on each", () => {
      const a3 = JSON.parse(markers(apply.lines).get("apply3")?.text ?? "{}") as { rootUuid: string };
      const pv1 = loop(img("pv1"));
      const pv2 = loop(img("pv2"));
      try {
        const devices = `${pv1},${pv2}`;
        const rep = (what: string, fields: string, all = false) =>
          (
            JSON.parse(lvm([what, "--readonly", ...(all ? ["-a"] : []), "--devices", devices, "--units", "b", "--nosuffix", "--reportformat", "json", "-o", fields])) as {
              report: Record<string, Record<string, string>[]>[];
            }
          ).report[0] as Record<string, Record<string, string>[]>;
        const lvs = rep("lvs", "lv_name,segtype,stripes,lv_size,seg_pe_ranges", true).lv as Record<string, string>[];
        const by = Object.fromEntries(lvs.map((l) => [l.lv_name, l]));
        expect([by.mirror?.segtype, by.stripe?.segtype, by.stripe?.stripes]).toEqual(["raid1", "striped", "2"]);
        expect(
          Object.keys(by)
            .filter((n) => n.includes("rimage"))
            .sort(),
        ).toEqual(["[mirror_rimage_0]", "[mirror_rimage_1]"]);
        const ext = Number((rep("vgs", "vg_extent_size").vg?.[0] as Record<string, string>).vg_extent_size);
        const peStart = Object.fromEntries((rep("pvs", "pv_name,pe_start").pv as Record<string, string>[]).map((p) => [p.pv_name, Number(p.pe_start)]));
        // Each raid1 leg is a full copy: ext4 "mirror" on both disks.
        for (const leg of ["[mirror_rimage_0]", "[mirror_rimage_1]"]) {
          const [, dev, start] = /^(\S+):(\d+)-/.exec(by[leg]?.seg_pe_ranges ?? "") ?? [];
          const f = probe(dev as string, (peStart[dev as string] as number) + Number(start) * ext);
          expect({ leg, type: f.TYPE, label: f.LABEL, uuid: f.UUID }).toEqual({ leg, type: "ext4", label: "mirror", uuid: a3.rootUuid });
        }
        // The striped volume's first chunk (with the ext4 superblock) is on the first PV of its segment.
        const [, sdev, sstart] = /^(\S+):(\d+)-/.exec(by.stripe?.seg_pe_ranges ?? "") ?? [];
        expect(probe(sdev as string, (peStart[sdev as string] as number) + Number(sstart) * ext)).toMatchObject({ TYPE: "ext4", LABEL: "stripe" });
      } finally {
        unloop(pv1);
        unloop(pv2);
      }
    });
  });
});
