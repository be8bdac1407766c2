import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { AgentError } from "../../../src/platform/errors.ts";
import { MIB } from "../../../src/machine/disk/disk-facts.ts";
import { create, fromJsonString, type MessageInitShape } from "@bufbuild/protobuf";
import { FilesystemLayoutSchema, Format, VolumeGroupSchema, GPTType, LVMType, RaidLevel, type FilesystemLayout } from "../../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { formatOf, gptTypeCode, lvmKindOf, raidLevelOf } from "../../../src/machine/disk/layout-enums.ts";
import { planLayout, stepLine, type LayoutPlan } from "../../../src/machine/disk/layout-plan.ts";
import { disk } from "./helpers.ts";

const GiB = 1024 * MIB;
const layout = (n: string): FilesystemLayout => fromJsonString(FilesystemLayoutSchema, readFileSync(new URL(`../../fixtures/disk/layouts/${n}.json`, import.meta.url), "utf8"));
/** A layout as the generated message, the way Wait hands it to the planner. */
const fl = (init: MessageInitShape<typeof FilesystemLayoutSchema>): FilesystemLayout => create(FilesystemLayoutSchema, init);
const sda = disk({ name: "sda", path: "/dev/sda", sizeBytes: 480 * GiB });
const sdb = disk({ name: "sdb", path: "/dev/sdb", sizeBytes: 480 * GiB });
const nvme = (i: number) => disk({ name: `nvme${i}n1`, path: `/dev/nvme${i}n1`, sizeBytes: 1800 * GiB, nvme: true, nvmeController: `nvme${i}`, rotational: false });
const lines = (p: LayoutPlan) => p.steps.map(stepLine);
const ROOT = { targetRoot: "/rootfs" };

function refused(l: MessageInitShape<typeof FilesystemLayoutSchema>, disks = [sda, sdb]): string[] {
  try {
    planLayout(fl(l), disks, ROOT);
  } catch (e) {
    expect((e as AgentError).code).toBe("layout_refused");
    expect((e as AgentError).exitCode).toBe(61);
    return (e as AgentError).details.problems as string[];
  }
  throw new Error("the layout was not refused");
}

describe("layout planner: metal-stack's default shapes", () => {
  test("single disk: GPT with sizes, labels and types, mkfs with labels, mounts by depth under the target", () => {
    const p = planLayout(layout("c1-xlarge-single"), [sda], ROOT);
    expect(lines(p)).toEqual([
      "wipefs --all --force /dev/sda",
      "sgdisk --clear --new=1:0:+500M --change-name=1:efi --typecode=1:ef00 --new=2:0:+5000M --change-name=2:root --typecode=2:8300 --new=3:0:0 --change-name=3:varlib --typecode=3:8300 /dev/sda",
      "blockdev --rereadpt /dev/sda",
      "# wait up to 10 s for /dev/sda1",
      "# wait up to 10 s for /dev/sda2",
      "# wait up to 10 s for /dev/sda3",
      "mkfs.vfat -F 32 -n efi /dev/sda1",
      "mkfs.ext4 -F -L root /dev/sda2",
      "mkfs.ext4 -F -L varlib /dev/sda3",
      "mkdir -p /rootfs",
      "mount -t ext4 /dev/sda2 /rootfs",
      "mkdir -p /rootfs/boot/efi",
      "mount -t vfat /dev/sda1 /rootfs/boot/efi",
      "mkdir -p /rootfs/var/lib",
      "mount -t ext4 /dev/sda3 /rootfs/var/lib",
    ]);
    expect(p.filesystems.map((f) => [f.path, f.format, f.target])).toEqual([
      ["/", "ext4", "/rootfs"],
      ["/tmp", "tmpfs", undefined],
      ["/boot/efi", "vfat", "/rootfs/boot/efi"],
      ["/var/lib", "ext4", "/rootfs/var/lib"],
    ]);
  });

  test("two-disk RAID 1: mdadm as metal-hammer calls it, the ESP mirror keeps metadata 1.0", () => {
    const p = planLayout(layout("s2-xlarge-raid1"), [sda, sdb], ROOT);
    const md = lines(p).filter((l) => l.startsWith("mdadm"));
    expect(md).toEqual([
      "mdadm --create /dev/md1 --force --run --homehost any --level 1 --raid-devices 2 --assume-clean --metadata=1.0 /dev/sda1 /dev/sdb1",
      "mdadm --create /dev/md2 --force --run --homehost any --level 1 --raid-devices 2 --assume-clean /dev/sda2 /dev/sdb2",
      "mdadm --create /dev/md3 --force --run --homehost any --level 1 --raid-devices 2 --assume-clean /dev/sda3 /dev/sdb3",
    ]);
    expect(lines(p)).toContain("mkfs.vfat -F 32 -n efi /dev/md1");
    expect(lines(p)).toContain("mount -t ext4 /dev/md2 /rootfs");
    // partitions of both disks exist before the arrays are built
    expect(lines(p).indexOf("# wait up to 10 s for /dev/sdb3")).toBeLessThan(lines(p).findIndex((l) => l.startsWith("mdadm")));
  });

  test("a mirrored ESP without a metadata option gets --metadata=1.0 and a note", () => {
    const l = layout("s2-xlarge-raid1");
    const p = planLayout({ ...l, raid: l.raid.map((r) => ({ ...r, createOptions: [] })) }, [sda, sdb], ROOT);
    expect(lines(p).find((x) => x.includes("/dev/md1"))).toContain("--metadata=1.0");
    expect(lines(p).find((x) => x.includes("--create /dev/md2"))).not.toContain("--metadata");
    expect(p.notes.join()).toMatch(/md1: mirrored EFI system partition/);
  });

  test("LVM: VG with tags over two PVs, striped over both, raid1 with one mirror, the rest linear; swap and none", () => {
    const p = planLayout(layout("c1-large-lvm"), [sda, nvme(0), nvme(1)], ROOT);
    expect(lines(p).filter((l) => l.startsWith("lvm"))).toEqual([
      "lvm vgcreate --verbose --yes lvm --addtag local /dev/nvme0n1 /dev/nvme1n1",
      "lvm lvcreate --verbose --yes --name varlib --wipesignatures y --size 100000m --type striped --stripes 2 lvm",
      "lvm lvcreate --verbose --yes --name mirror --wipesignatures y --size 1000m --type raid1 --mirrors 1 --nosync lvm",
      "lvm lvcreate --verbose --yes --name scratch --wipesignatures y --extents 100%FREE lvm",
    ]);
    expect(lines(p)).toContain("mkswap -f -L swap /dev/sda3");
    expect(lines(p)).toContain("mkfs.ext4 -E lazy_itable_init=1 -F -L varlib /dev/lvm/varlib");
    expect(lines(p)).toContain("mkfs.ext3 -F -L mirror /dev/lvm/mirror");
    expect(lines(p).some((l) => l.includes("/dev/lvm/scratch") && l.startsWith("mkfs"))).toBe(false);
    const mounts = lines(p).filter((l) => l.startsWith("mount"));
    expect(mounts).toEqual([
      "mount -t ext4 /dev/sda2 /rootfs",
      "mount -t vfat /dev/sda1 /rootfs/boot/efi",
      "mount -t ext4 /dev/lvm/varlib /rootfs/var/lib",
      "mount -t ext3 -o noatime /dev/lvm/mirror /rootfs/var/lib/mirror",
    ]);
  });

  test("striped or raid1 on a VG with one PV is created linear, with a note (metal-hammer's behaviour)", () => {
    const l = layout("c1-large-lvm");
    const p = planLayout({ ...l, volumeGroups: [create(VolumeGroupSchema, { name: "lvm", devices: ["/dev/nvme0n1"] })] }, [sda, nvme(0)], ROOT);
    expect(lines(p).find((x) => x.includes("--name varlib"))).not.toContain("--type");
    expect(p.notes.filter((n) => n.includes("created linear")).length).toBe(2);
  });

  test("mount options mount(8) does not pass on are dropped from -o (defaults, auto, x-*)", () => {
    const p = planLayout(
      fl({
        disks: [{ device: "/dev/sda", partitions: [{ number: 1, size: 100n }] }],
        filesystems: [{ device: "/dev/sda1", format: Format.EXT4, path: "/", mountOptions: ["defaults", "noatime", "x-systemd.automount", "auto"] }],
      }),
      [sda],
      ROOT,
    );
    expect(lines(p)).toContain("mount -t ext4 -o noatime /dev/sda1 /rootfs");
  });

  test("RAID 1 with a spare: active devices exclude the spare; a partition without label or type gets neither option", () => {
    const p = planLayout(
      fl({
        disks: [{ device: "/dev/sda", partitions: [{ number: 1, size: 1000n }] }],
        raid: [{ arrayName: "/dev/md/data", devices: ["/dev/sda1", "/dev/sdb", "/dev/nvme0n1"], level: RaidLevel.RAID_LEVEL_1, spares: 1, createOptions: ["--bitmap=internal"] }],
        filesystems: [{ device: "/dev/md/data", format: Format.EXT4, path: "/" }],
      }),
      [sda, sdb, nvme(0)],
      ROOT,
    );
    expect(lines(p)).toContain("sgdisk --clear --new=1:0:+1000M /dev/sda");
    expect(lines(p)).toContain(
      "mdadm --create /dev/md/data --force --run --homehost any --level 1 --raid-devices 2 --assume-clean --spare-devices 1 --bitmap=internal /dev/sda1 /dev/sdb /dev/nvme0n1",
    );
  });

  test("RAID 0 over two RAID-typed partitions (--assume-clean, no metadata override) and an LVM-typed PV partition: exact commands", () => {
    const p = planLayout(
      fl({
        disks: [
          {
            device: "/dev/sda",
            partitions: [
              { number: 1, label: "root", size: 10000n, gptType: GPTType.GPT_TYPE_LINUX },
              { number: 2, label: "data", size: 20000n, gptType: GPTType.GPT_TYPE_LINUX_RAID },
              { number: 3, label: "pv", gptType: GPTType.GPT_TYPE_LINUX_LVM },
            ],
          },
          { device: "/dev/sdb", partitions: [{ number: 1, label: "data", size: 20000n, gptType: GPTType.GPT_TYPE_LINUX_RAID }] },
        ],
        raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda2", "/dev/sdb1"], level: RaidLevel.RAID_LEVEL_0 }],
        volumeGroups: [{ name: "vg0", devices: ["/dev/sda3"] }],
        logicalVolumes: [{ name: "scratch", volumeGroup: "vg0", lvmType: LVMType.LVM_TYPE_LINEAR }],
        filesystems: [
          { device: "/dev/sda1", format: Format.EXT4, path: "/", label: "root" },
          { device: "/dev/md0", format: Format.EXT4, path: "/data", label: "data" },
          { device: "/dev/vg0/scratch", format: Format.EXT4, path: "/scratch" },
        ],
      }),
      [sda, sdb],
      ROOT,
    );
    expect(lines(p).filter((l) => /^(sgdisk|mdadm|lvm|mkfs)/.test(l))).toEqual([
      "sgdisk --clear --new=1:0:+10000M --change-name=1:root --typecode=1:8300 --new=2:0:+20000M --change-name=2:data --typecode=2:fd00 --new=3:0:0 --change-name=3:pv --typecode=3:8e00 /dev/sda",
      "sgdisk --clear --new=1:0:+20000M --change-name=1:data --typecode=1:fd00 /dev/sdb",
      "mdadm --create /dev/md0 --force --run --homehost any --level 0 --raid-devices 2 --assume-clean /dev/sda2 /dev/sdb1",
      "lvm vgcreate --verbose --yes vg0 /dev/sda3",
      "lvm lvcreate --verbose --yes --name scratch --wipesignatures y --extents 100%FREE vg0",
      "mkfs.ext4 -F -L root /dev/sda1",
      "mkfs.ext4 -F -L data /dev/md0",
      "mkfs.ext4 -F /dev/vg0/scratch",
    ]);
  });

  test("an NVMe partition is named with p", () => {
    const p = planLayout(
      fl({ disks: [{ device: "/dev/nvme0n1", partitions: [{ number: 1 }] }], filesystems: [{ device: "/dev/nvme0n1p1", format: Format.EXT4, path: "/" }] }),
      [nvme(0)],
      ROOT,
    );
    expect(lines(p)).toContain("mkfs.ext4 -F /dev/nvme0n1p1");
  });
});

describe("layout planner: refusals before anything is written", () => {
  test("a disk the machine does not have", () => {
    expect(refused(layout("s2-xlarge-raid1"), [sda]).join()).toMatch(/disk \/dev\/sdb: no such disk on this machine \(found: \/dev\/sda\)/);
  });

  test("partitions larger than the disk", () => {
    const small = disk({ name: "sda", path: "/dev/sda", sizeBytes: 4 * GiB });
    expect(refused(layout("c1-xlarge-single"), [small]).join()).toMatch(/disk \/dev\/sda: the partitions need 5501 MiB but the disk has 4094 MiB usable/);
  });

  test("a rest-of-disk partition that is not the last, a duplicate number, a number out of range", () => {
    const p = refused({ disks: [{ device: "/dev/sda", partitions: [{ number: 1 }, { number: 1, size: 10n }, { number: 0, size: 1n }] }] });
    expect(p.join("\n")).toMatch(/partition 1: size 0 \(the rest of the disk\) must be the last partition/);
    expect(p.join("\n")).toMatch(/partition number 1 twice/);
    expect(p.join("\n")).toMatch(/number 0: expected 1..128/);
  });

  test("a disk listed twice, a disk without device, a read-only disk", () => {
    expect(refused({ disks: [{ device: "/dev/sda" }, { device: "/dev/sda" }] }).join()).toMatch(/listed twice/);
    expect(refused({ disks: [{ partitions: [] }] }).join()).toMatch(/disks\[0\]: no device/);
    expect(refused({ disks: [{ device: "/dev/sda" }] }, [disk({ readOnly: true })]).join()).toMatch(/read-only/);
  });

  test("RAID: no level, one device, unknown member, bad name, ESP on RAID 0 or with metadata 1.2", () => {
    expect(refused({ raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda", "/dev/sdb"] }] }).join()).toMatch(/no RAID level/);
    expect(refused({ raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda"], level: RaidLevel.RAID_LEVEL_1 }] }).join()).toMatch(/needs at least 2 active devices/);
    expect(refused({ raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda", "/dev/sdx"], level: RaidLevel.RAID_LEVEL_0 }] }).join()).toMatch(/device \/dev\/sdx is neither a disk/);
    expect(refused({ raid: [{ arrayName: "md0", devices: ["/dev/sda", "/dev/sdb"], level: RaidLevel.RAID_LEVEL_0 }] }).join()).toMatch(/expected \/dev\/mdN/);
    expect(
      refused({ raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda", "/dev/sdb", "/dev/sdc"], level: RaidLevel.RAID_LEVEL_0, spares: 1 }] }, [
        sda,
        sdb,
        disk({ name: "sdc", path: "/dev/sdc" }),
      ]).join(),
    ).toMatch(/RAID 0 has no spares/);
    const esp = (level: RaidLevel, createOptions: string[]) =>
      refused({
        raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda", "/dev/sdb"], level, createOptions }],
        filesystems: [{ device: "/dev/md0", format: Format.VFAT, path: "/boot/efi" }],
      }).join();
    expect(esp(RaidLevel.RAID_LEVEL_0, [])).toMatch(/can only be mirrored/);
    expect(esp(RaidLevel.RAID_LEVEL_1, ["--metadata=1.2"])).toMatch(/asks for --metadata=1.2; firmware needs 1.0/);
  });

  test("a device used twice (a RAID member that also carries a filesystem)", () => {
    expect(
      refused({
        raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda", "/dev/sdb"], level: RaidLevel.RAID_LEVEL_1 }],
        filesystems: [{ device: "/dev/sda", format: Format.EXT4 }],
      }).join(),
    ).toMatch(/\/dev\/sda is used twice: by raid \/dev\/md0 and by filesystem/);
  });

  test("LVM: unknown VG, volumes larger than the VG, a volume after the rest-of-VG volume, bad names, no devices", () => {
    expect(refused({ logicalVolumes: [{ name: "a", volumeGroup: "nope", size: 1n }] }).join()).toMatch(/volume group "nope" is not in the layout/);
    const vg = { name: "vg", devices: ["/dev/sda"] };
    expect(refused({ volumeGroups: [vg], logicalVolumes: [{ name: "big", volumeGroup: "vg", size: BigInt(500 * 1024) }] }).join()).toMatch(
      /volume group vg has 491516 MiB; its volumes need 512000 MiB/,
    );
    expect(
      refused({
        volumeGroups: [vg],
        logicalVolumes: [
          { name: "rest", volumeGroup: "vg" },
          { name: "late", volumeGroup: "vg", size: 1n },
        ],
      }).join(),
    ).toMatch(/late: comes after logical volume vg\/rest/);
    expect(refused({ volumeGroups: [{ name: "bad name", devices: ["/dev/sda"] }] }).join()).toMatch(/name "bad name"/);
    expect(refused({ volumeGroups: [{ name: "vg" }] }).join()).toMatch(/volume group vg: no devices/);
    expect(
      refused({
        volumeGroups: [
          { name: "vg", devices: ["/dev/sda"] },
          { name: "vg", devices: ["/dev/sdb"] },
        ],
      }).join(),
    ).toMatch(/volume group vg is listed twice/);
    expect(refused({ volumeGroups: [vg], logicalVolumes: [{ name: "", volumeGroup: "vg" }] }).join()).toMatch(/name ""/);
  });

  test("raid1 volumes count twice against the VG", () => {
    const vg = { name: "vg", devices: ["/dev/sda", "/dev/sdb"] };
    expect(refused({ volumeGroups: [vg], logicalVolumes: [{ name: "m", volumeGroup: "vg", size: BigInt(480 * 1024), lvmType: LVMType.LVM_TYPE_RAID1 }] }).join()).toMatch(
      /its volumes need 983048 MiB/,
    );
  });

  test("filesystems: no format, no device, unknown device, relative or doubled path, label too long", () => {
    expect(refused({ filesystems: [{ device: "/dev/sda", path: "/" }] }).join()).toMatch(/no format/);
    expect(refused({ filesystems: [{ format: Format.EXT4, path: "/" }] }).join()).toMatch(/filesystem \/: no device/);
    expect(refused({ filesystems: [{ device: "/dev/sdq1", format: Format.EXT4, path: "/" }] }).join()).toMatch(/device \/dev\/sdq1 is neither/);
    expect(refused({ filesystems: [{ device: "/dev/sda", format: Format.EXT4, path: "var" }] }).join()).toMatch(/expected an absolute path/);
    expect(
      refused({
        filesystems: [
          { device: "/dev/sda", format: Format.EXT4, path: "/" },
          { device: "/dev/sdb", format: Format.EXT4, path: "/" },
        ],
      }).join(),
    ).toMatch(/path \/ is mounted twice/);
    expect(refused({ filesystems: [{ device: "/dev/sda", format: Format.VFAT, path: "/boot/efi", label: "EFI-SYSTEM-P" }] }).join()).toMatch(
      /longer than vfat allows \(11 bytes\)/,
    );
  });

  test("a layout without a filesystem at / (the installer needs one)", () => {
    expect(refused({ disks: [{ device: "/dev/sda", partitions: [{ number: 1 }] }], filesystems: [{ device: "/dev/sda1", format: Format.EXT4, path: "/data" }] }).join()).toMatch(
      /no filesystem is mounted at \//,
    );
    expect(refused({ filesystems: [{ device: "tmpfs", format: Format.TMPFS, path: "/" }] }).join()).toMatch(/no filesystem is mounted at \//);
  });

  test("every problem is listed at once, in the error message too", () => {
    try {
      planLayout(fl({ id: "broken", disks: [{ device: "/dev/sdx" }], filesystems: [{ device: "/dev/sdx1", path: "/" }] }), [sda], ROOT);
      throw new Error("not refused");
    } catch (e) {
      expect((e as Error).message).toMatch(/^filesystem layout broken refused: disk \/dev\/sdx: no such disk.*; filesystem \/: no format/);
    }
  });
});

describe("layout planner: the generated FilesystemLayout as protojson lets it through", () => {
  // protojson takes any number for an (open) enum and any int32 for spares: the planner refuses what it cannot build.
  test("enum numbers the proto does not define are refused naming the field and the values expected", () => {
    const p = refused({
      disks: [{ device: "/dev/sda", partitions: [{ number: 1, size: 100n, gptType: 9 as GPTType }, { number: 2 }] }],
      raid: [{ arrayName: "/dev/md0", devices: ["/dev/sdb", "/dev/sda2"], level: 7 as RaidLevel }],
      volumeGroups: [{ name: "vg", devices: ["/dev/sdb"] }],
      logicalVolumes: [{ name: "lv", volumeGroup: "vg", size: 10n, lvmType: 5 as LVMType }],
      filesystems: [{ device: "/dev/sda1", format: 42 as Format, path: "/" }],
    }).join("\n");
    expect(p).toContain("disks[0].partitions[0].gptType 9: expected one of GPT_TYPE_BOOT, GPT_TYPE_LINUX, GPT_TYPE_LINUX_RAID or GPT_TYPE_LINUX_LVM");
    expect(p).toContain("raid /dev/md0: raid[0].level 7 is not a RaidLevel (expected RAID_LEVEL_0 or RAID_LEVEL_1)");
    expect(p).toContain("logical volume vg/lv: logicalVolumes[0].lvmType 5 is not an LVMType (expected LVM_TYPE_LINEAR, LVM_TYPE_STRIPED or LVM_TYPE_RAID1)");
    expect(p).toContain("filesystem /: filesystems[0].format 42 is not a Format (expected FORMAT_VFAT, FORMAT_EXT3, FORMAT_EXT4, FORMAT_SWAP, FORMAT_TMPFS or FORMAT_NONE)");
  });

  test("negative spares (int32 upstream) are refused", () => {
    expect(refused({ raid: [{ arrayName: "/dev/md0", devices: ["/dev/sda", "/dev/sdb"], level: RaidLevel.RAID_LEVEL_1, spares: -1 }] }).join()).toContain(
      "raid /dev/md0: raid[0].spares -1: expected 0 or more",
    );
  });

  test("the commands' names are each value's enum_string_value from the generated descriptors", () => {
    expect([GPTType.GPT_TYPE_BOOT, GPTType.GPT_TYPE_LINUX, GPTType.GPT_TYPE_LINUX_RAID, GPTType.GPT_TYPE_LINUX_LVM, GPTType.GPT_TYPE_UNSPECIFIED].map(gptTypeCode)).toEqual([
      "ef00",
      "8300",
      "fd00",
      "8e00",
      undefined,
    ]);
    expect([Format.UNSPECIFIED, Format.VFAT, Format.EXT3, Format.EXT4, Format.SWAP, Format.TMPFS, Format.NONE].map(formatOf)).toEqual([
      undefined,
      "vfat",
      "ext3",
      "ext4",
      "swap",
      "tmpfs",
      "none",
    ]);
    expect([RaidLevel.RAID_LEVEL_UNSPECIFIED, RaidLevel.RAID_LEVEL_0, RaidLevel.RAID_LEVEL_1].map(raidLevelOf)).toEqual([undefined, "0", "1"]);
    expect([LVMType.LVM_TYPE_UNSPECIFIED, LVMType.LVM_TYPE_LINEAR, LVMType.LVM_TYPE_STRIPED, LVMType.LVM_TYPE_RAID1].map(lvmKindOf)).toEqual([
      "linear",
      "linear",
      "striped",
      "raid1",
    ]);
  });
});
