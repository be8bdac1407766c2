/**
 * Hostile layouts (issue 29): every one is refused with exit 61 naming the field, the
 * value and the rule, through the pure planner and through `disk plan` (which touches
 * nothing). On main (6589b68) each of these planned commands that reach outside the target.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../../../src/cli/program.ts";
import type { AgentError } from "../../../src/platform/errors.ts";
import { MIB } from "../../../src/machine/disk/disk-facts.ts";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { FilesystemLayoutSchema, FilesystemSchema, Format, RaidLevel, type Filesystem, type FilesystemLayout } from "../../../src/gen/metalstack/api/v2/filesystem_pb.ts";
import { planLayout } from "../../../src/machine/disk/layout-plan.ts";
import { createOptionsRule, mountOptionRule } from "../../../src/machine/disk/layout-rules.ts";
import { captureContext } from "../../helpers/capture.ts";
import { disk } from "./helpers.ts";

const GiB = 1024 * MIB;
const sda = disk({ name: "sda", path: "/dev/sda", sizeBytes: 480 * GiB });
const sdb = disk({ name: "sdb", path: "/dev/sdb", sizeBytes: 480 * GiB });
const SYS = join(import.meta.dir, "../../fixtures/disk/sys");

/** A layout: two partitions on sda (root on sda1), plus `extra` filesystems on sda2 and what else is given. */
/** The plain-object init shapes of the generated messages (what create() takes). */
type LayoutInit = Exclude<MessageInitShape<typeof FilesystemLayoutSchema>, FilesystemLayout>;
type FsInit = Exclude<MessageInitShape<typeof FilesystemSchema>, Filesystem>;

function withFs(extra: FsInit[], more: Partial<LayoutInit> = {}): LayoutInit {
  return {
    id: "hostile",
    disks: [{ device: "/dev/sda", partitions: [{ number: 1, size: 1000n }, { number: 2, size: 1000n }, { number: 3 }] }],
    filesystems: [{ device: "/dev/sda1", format: Format.EXT4, path: "/" }, ...extra],
    ...more,
  };
}

function refusal(l: LayoutInit): string {
  try {
    planLayout(create(FilesystemLayoutSchema, l), [sda, sdb], { targetRoot: "/rootfs" });
  } catch (e) {
    expect((e as AgentError).code).toBe("layout_refused");
    expect((e as AgentError).exitCode).toBe(61);
    return (e as AgentError).message;
  }
  throw new Error(`planned: ${JSON.stringify(l)}`);
}

const ext4 = (path: string, o: Partial<FsInit> = {}): FsInit => ({ device: "/dev/sda2", format: Format.EXT4, path, ...o });

describe("layout planner: hostile paths", () => {
  test.each(["/../../etc/ssl", "/..", "/var/../../run/metal"])("%s climbing out of the target is refused", (p) => {
    expect(refusal(withFs([ext4(p)]))).toContain(`filesystems[1].path ${JSON.stringify(p)}: ".." is not allowed`);
  });

  test.each([
    ["//", "/"],
    ["/.", "/"],
    ["/var/", "/var"],
    ["/var//lib", "/var/lib"],
    ["/var/./lib", "/var/lib"],
  ])("%s is not canonical: the message names %s", (p, canon) => {
    expect(refusal(withFs([ext4(p)]))).toContain(`filesystems[1].path ${JSON.stringify(p)}: not canonical: expected ${JSON.stringify(canon)}`);
  });

  test("a root spelled // does not count as root", () => {
    const l: LayoutInit = { disks: [{ device: "/dev/sda", partitions: [{ number: 1 }] }], filesystems: [{ device: "/dev/sda1", format: Format.EXT4, path: "//" }] };
    const m = refusal(l);
    expect(m).toContain("no filesystem is mounted at /");
    expect(m).toContain("not canonical");
  });

  test.each(["/var\n/dev/sdb1 / ext4", "/va r", "/var\t", "/x\u0000y", "/x\u00a0y", "/x\\040y"])("path %j (newline, blank, control, escape) is refused", (p) => {
    expect(refusal(withFs([ext4(p)]))).toContain(`filesystems[1].path ${JSON.stringify(p)}`);
  });

  test("FORMAT_NONE with a path is refused (it would write 'UUID= /data none' into fstab)", () => {
    expect(refusal(withFs([{ device: "/dev/sda2", format: Format.NONE, path: "/data" }]))).toContain(`filesystems[1].path "/data": FORMAT_NONE makes no filesystem`);
  });
});

describe("layout planner: hostile options", () => {
  test.each([
    [["-d", "/run/metal"], `filesystems[1].createOptions[0] "-d": -d is not allowed: copies a directory`],
    [["-d/run/metal"], `-d is not allowed`],
    [["-z", "/tmp/undo"], `-z is not allowed: writes an undo file`],
    [["-J", "device=/dev/sdb"], `value "device=/dev/sdb" of -J`],
    [["-E", "lazy_itable_init=1", "/dev/sdb"], `filesystems[1].createOptions[2] "/dev/sdb": "/dev/sdb" is a positional argument`],
    [["-L", "x"], `-L is not allowed: the label comes from the label field`],
    [["-qd", "/run"], `-d is not allowed`],
    [["--bogus"], `--bogus is not an allowed mke2fs option`],
    [["-m 0"], `holds " "`],
  ])("mkfs.ext4 create options %j are refused", (opts, msg) => {
    expect(refusal(withFs([ext4("/var", { createOptions: opts })]))).toContain(msg);
  });

  test("mkswap --file and mkfs.vfat -C (files) are refused", () => {
    expect(refusal(withFs([{ device: "/dev/sda2", format: Format.SWAP, createOptions: ["--file"] }]))).toContain("--file is not allowed: creates a swap file");
    expect(refusal(withFs([{ device: "/dev/sda2", format: Format.VFAT, path: "/boot/efi", createOptions: ["-C"] }]))).toContain("-C is not allowed: creates a file");
  });

  test("mdadm --spare-devices=1 /dev/sdb (an undeclared disk) is refused", () => {
    const l = withFs([], {
      disks: [
        {
          device: "/dev/sda",
          partitions: [
            { number: 1, size: 1000n },
            { number: 2, size: 1000n },
            { number: 3, size: 1000n },
          ],
        },
      ],
      raid: [{ arrayName: "/dev/md0", level: RaidLevel.RAID_LEVEL_1, devices: ["/dev/sda2", "/dev/sda3"], createOptions: ["--spare-devices=1", "/dev/sdb"] }],
    });
    expect(refusal(l)).toContain(`raid[0].createOptions[0] "--spare-devices=1": --spare-devices is not allowed`);
    const positional = { ...l, raid: [{ ...l.raid![0]!, createOptions: ["/dev/sdb"] }] };
    expect(refusal(positional)).toContain(`raid[0].createOptions[0] "/dev/sdb": "/dev/sdb" is a positional argument`);
    const bitmap = { ...l, raid: [{ ...l.raid![0]!, createOptions: ["--bitmap=/run/metal/bm"] }] };
    expect(refusal(bitmap)).toContain(`value "/run/metal/bm" of --bitmap`);
  });

  test.each([
    ["noatime\n/dev/sdb1 /mnt ext4 defaults 0 0", `holds "\\n"`],
    ["X-mount.mkdir", "X-* options are acted on by mount(8)"],
    ["X-mount.subdir=etc", "X-* options"],
    ["loop", "loop is not allowed"],
    ["offset=0", "offset is not allowed"],
    ["comment=x", "comment is not allowed"],
    ["noatime,loop", "one option per item"],
    ["size=1G 0 0", `holds " "`],
    ["mode=../", `value "../"`],
  ])("mount option %j is refused", (o, msg) => {
    expect(refusal(withFs([ext4("/var", { mountOptions: [o] })]))).toContain(`filesystems[1].mountOptions[0] ${JSON.stringify(o)}`);
    expect(refusal(withFs([ext4("/var", { mountOptions: [o] })]))).toContain(msg);
  });

  test("a label with a newline or a blank is refused (sgdisk name and filesystem label)", () => {
    expect(refusal(withFs([ext4("/var", { label: "a\nb" })]))).toContain(`filesystems[1].label "a\\nb": holds "\\n"`);
    const l = withFs([], { disks: [{ device: "/dev/sda", partitions: [{ number: 1, label: "ro ot" }] }] });
    expect(refusal(l)).toContain(`disks[0].partitions[0].label "ro ot"`);
  });

  test("the allow-lists keep the options real layouts use", () => {
    expect(createOptionsRule("mke2fs", ["-E", "lazy_itable_init=1", "-m", "0", "-O", "^has_journal", "-T", "news", "-b", "4096"])).toBeUndefined();
    expect(createOptionsRule("mkfs.fat", ["-F", "32"])).toBeUndefined();
    expect(createOptionsRule("mdadm", ["--metadata=1.0", "--chunk", "512", "--bitmap=internal", "-e", "1.2"])).toBeUndefined();
    for (const o of ["defaults", "noatime", "nosuid", "nodev", "noexec", "mode=1777", "size=512M", "errors=remount-ro", "x-systemd.automount", "discard"])
      expect(mountOptionRule(o)).toBeUndefined();
  });
});

describe("layout planner: hostile names", () => {
  const two = {
    disks: [
      {
        device: "/dev/sda",
        partitions: [
          { number: 1, size: 1000n },
          { number: 2, size: 1000n },
          { number: 3, size: 1000n },
          { number: 4, size: 1000n },
        ],
      },
    ],
  };
  test("RAID /dev/md/.. and two arrays both /dev/md0 are refused", () => {
    expect(refusal(withFs([], { ...two, raid: [{ arrayName: "/dev/md/..", level: RaidLevel.RAID_LEVEL_1, devices: ["/dev/sda2", "/dev/sda3"] }] }))).toContain(
      `raid[0].arrayName "/dev/md/..": "." and ".." are not device names`,
    );
    const dup = withFs([], {
      ...two,
      raid: [
        { arrayName: "/dev/md0", level: RaidLevel.RAID_LEVEL_1, devices: ["/dev/sda2", "/dev/sda3"] },
        { arrayName: "/dev/md0", level: RaidLevel.RAID_LEVEL_0, devices: ["/dev/sda4", "/dev/sdb"] },
      ],
    });
    expect(refusal(dup)).toContain(`raid[1].arrayName "/dev/md0": listed twice`);
  });

  test.each([".", "..", "sdb", "mapper", "disk"])("a volume group named %j (its LV path would be another device) is refused", (name) => {
    const l = withFs([], { volumeGroups: [{ name, devices: ["/dev/sda2"] }], logicalVolumes: [{ name: "lv", volumeGroup: name, size: 10n }] });
    expect(refusal(l)).toContain(`volumeGroups[0].name ${JSON.stringify(name)}`);
  });

  test("an LV named .. or twice in one VG, and an LVM tag starting with - are refused", () => {
    const vg = { volumeGroups: [{ name: "vg", devices: ["/dev/sda2"] }] };
    expect(refusal(withFs([], { ...vg, logicalVolumes: [{ name: "..", volumeGroup: "vg", size: 10n }] }))).toContain(`logicalVolumes[0].name ".."`);
    expect(
      refusal(
        withFs([], {
          ...vg,
          logicalVolumes: [
            { name: "a", volumeGroup: "vg", size: 10n },
            { name: "a", volumeGroup: "vg", size: 10n },
          ],
        }),
      ),
    ).toContain(`logicalVolumes[1].name "a": listed twice in vg`);
    expect(refusal(withFs([], { volumeGroups: [{ name: "vg", devices: ["/dev/sda2"], tags: ["--setautoactivation"] }] }))).toContain(
      `volumeGroups[0].tags[0] "--setautoactivation"`,
    );
  });
});

describe("disk plan refuses hostile layouts with exit 61 and plans nothing", () => {
  const base = { disks: [{ device: "/dev/sda", partitions: [{ number: 1, size: "1000" }, { number: 2 }] }] };
  test.each([
    [
      {
        ...base,
        filesystems: [
          { device: "/dev/sda1", format: "FORMAT_EXT4", path: "/" },
          { device: "/dev/sda2", format: "FORMAT_EXT4", path: "/../../etc/ssl" },
        ],
      },
      `filesystems[1].path "/../../etc/ssl": ".." is not allowed`,
    ],
    [
      {
        ...base,
        filesystems: [
          { device: "/dev/sda1", format: "FORMAT_EXT4", path: "/" },
          { device: "/dev/sda2", format: "FORMAT_EXT4", path: "//" },
        ],
      },
      `filesystems[1].path "//": not canonical`,
    ],
    [
      { ...base, filesystems: [{ device: "/dev/sda1", format: "FORMAT_EXT4", path: "/", createOptions: ["-d", "/run/metal"] }] },
      `filesystems[0].createOptions[0] "-d": -d is not allowed`,
    ],
    [{ ...base, filesystems: [{ device: "/dev/sda1", format: "FORMAT_EXT4", path: "/", mountOptions: ["noatime\n/dev/sdb / ext4"] }] }, `filesystems[0].mountOptions[0]`],
    [
      {
        ...base,
        raid: [{ arrayName: "/dev/md0", level: "RAID_LEVEL_1", devices: ["/dev/sda2", "/dev/sdb"], createOptions: ["--spare-devices=1", "/dev/vda"] }],
        filesystems: [{ device: "/dev/sda1", format: "FORMAT_EXT4", path: "/" }],
      },
      `--spare-devices is not allowed`,
    ],
  ])("%#", async (l, msg) => {
    const c = captureContext({ "/l.json": JSON.stringify(l) });
    expect(await runCli(["disk", "plan", "/l.json", "--sysfs", SYS], c.ctx)).toBe(61);
    expect(c.err()).toContain(msg);
    expect(c.out()).not.toContain("mount ");
  });
});
