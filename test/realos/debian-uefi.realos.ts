/**
 * The real OS in the QEMU lab (`make test-realos-e2e`): the agent as PID 1 on OVMF with
 * two virtio disks is allocated the lab's RAID 1 layout (lab/standins/debian-raid1.json:
 * a mirrored ESP with PARTLABEL efi on each disk, root on md RAID 1, /var/lib on LVM over
 * a second array) and the lab's Debian image (`make debian-image`), streams it, runs the
 * real /os-installer (raidenabled: mdadm.conf, update-initramfs, efibootmgr per disk,
 * grub-install --removable --no-nvram), then the machine comes up twice:
 * 1. kexec into the installed kernel and initrd from boot-info.yaml: Debian's initramfs
 *    assembles the array and mounts root by UUID; systemd reaches its marker unit;
 * 2. a power cycle (same disks and NVRAM, no kernel, no NIC): OVMF boots the GRUB
 *    os-installer installed, into the same system, to the marker again.
 * Each boot is proven from the console by the marker line of lab/images/debian.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Proc } from "../../lab/ipxe/lab-process.ts";
import { LAB_KERNEL } from "../../lab/kernel.ts";
import { defaultRun, runLab, type LabResult } from "../../lab/lab.ts";
import { ovmfArgs, ovmfMissing } from "../../lab/ovmf.ts";
import { labMissing } from "../../lab/prereqs.ts";
import { standinServers } from "../../lab/servers.ts";
import { waitFor } from "../../lab/wait.ts";
import { parseOsInstallerLog } from "../../src/install/os-installer-log.ts";
import { qemuMachineArgv } from "../../lab/qemu.ts";
import { STAGES } from "../../src/config/stages.ts";

const REPO = join(import.meta.dir, "../..");
const IMAGE = join(REPO, "build/debian/img.tar.lz4");
const ALLOCATION = join(REPO, "lab/standins/debian-raid1.json");
const KVER = LAB_KERNEL.replace(/^.*vmlinux-/, "");
const BZIMAGE = `/boot/vmlinuz-${KVER}`;
const missing = labMissing([ovmfMissing() || undefined, existsSync(IMAGE) ? undefined : `${IMAGE} (make debian-image)`, existsSync(BZIMAGE) ? undefined : BZIMAGE]);

const INSTALL_BOUND_MS = 1_500_000;
const DISK_BOOT_BOUND_MS = 600_000;
const DISK_BYTES = 4 * 2 ** 30;
const MARKER = /metal-lab-marker: hostname=(\S+) root=(\S+) state=(\S+) boot=(\S+)/;
const ev = (r: LabResult, event: string) => r.records.filter((x) => x.event === event);

describe("the real Debian through the real os-installer on UEFI with RAID 1", () => {
  test("prerequisites", () => expect(missing).toEqual([]));
  if (missing.length > 0) return;

  let dir: string;
  let r: LabResult;
  let disks: string[];
  let diskBoot: Proc | undefined;
  const diskArgs = () => disks.flatMap((d, i) => ["-drive", `file=${d},if=none,id=d${i},format=raw`, "-device", `virtio-blk-pci,drive=d${i}`]);
  const started = Date.now();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mh-realos-e2e-"));
    disks = ["vda.raw", "vdb.raw"].map((n) => join(dir, n));
    for (const d of disks) {
      writeFileSync(d, "");
      truncateSync(d, DISK_BYTES);
    }
    r = await runLab(
      defaultRun({
        live: process.env.REALOS_LIVE === "1",
        timeoutMs: INSTALL_BOUND_MS,
        expect: "poweroff",
        kernel: BZIMAGE,
        memoryMiB: 2048,
        // os-installer splits console= into port and speed and needs the "n8" (common/install_bootloader.go FigureOutSerialSpeed).
        extraCmdline: ["console=ttyS0,115200n8", ...(process.env.REALOS_LOGLEVEL ? [`loglevel=${process.env.REALOS_LOGLEVEL}`] : [])],
        extraQemu: [...ovmfArgs(dir, "vm"), ...diskArgs()],
        servers: (env) => standinServers(env).map((s) => (s.name === "standins" ? { ...s, argv: [...s.argv, "--image", IMAGE, "--allocation", ALLOCATION] } : s)),
      }),
    );
  }, INSTALL_BOUND_MS + 60_000);

  afterAll(async () => {
    await diskBoot?.stop().catch(() => undefined);
    if (dir && process.env.REALOS_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
  });

  test("install: the RAID 1 layout, the image, os-installer's tasks, InstallationSucceeded, kexec to the marker", () => {
    const lines = ev(r, "install.installer.output").map((l) => String(l.line));
    const run = parseOsInstallerLog(lines);
    process.stdout.write(`os-installer tasks (${run.tasks.length}, ${run.took ?? "?"}):\n${run.tasks.map((t) => `  ${String(t.ms).padStart(7)} ms  ${t.name}`).join("\n")}\n`);
    const stages = ev(r, "agent.stage").map((s) => `${String(s.stage)} ${String(s.ms ?? "")}`);
    process.stdout.write(`stages: ${stages.join(", ")}\n`);
    expect(ev(r, "agent.fatal")).toEqual([]);
    expect(run.failed).toBeUndefined();
    expect(run.succeeded).toBe(true);
    expect(ev(r, "agent.stage").map((s) => s.stage)).toEqual([...STAGES]);
    // raidenabled: the mdadm scan, the initramfs rebuilt with it, one boot entry per disk with PARTLABEL="efi".
    expect(lines.some((l) => l.includes('"command":"update-initramfs -u"'))).toBe(true);
    expect(lines.filter((l) => l.includes('"command":"efibootmgr -c -d /dev/vd')).length).toBe(2);
    const marker = r.lines.map((l) => MARKER.exec(l.text)).find((m) => m !== null);
    if (!marker)
      throw new Error(
        `no marker after the kexec; last console lines:\n${r.lines
          .slice(-40)
          .map((l) => l.text)
          .join("\n")}`,
      );
    expect(marker.slice(1)).toEqual(["realos-lab", "/dev/md2", "running", "kexec"]);
    process.stdout.write(`kexec boot marker after ${Math.round((Date.now() - started) / 1000)} s: ${marker[0]}\n`);
  });

  test(
    "a power cycle: OVMF boots the GRUB os-installer installed, into the same system, to the marker",
    async () => {
      const t0 = Date.now();
      diskBoot = new Proc("disk-boot", [...qemuMachineArgv(2048), ...ovmfArgs(dir, "vm"), ...diskArgs()]);
      await waitFor(() => MARKER.test(diskBoot?.text() ?? "") || diskBoot?.exitCode !== null, DISK_BOOT_BOUND_MS, "the installed Debian's marker line from a disk boot");
      const text = diskBoot.text();
      const marker = MARKER.exec(text);
      if (!marker) throw new Error(`no marker from the disk boot; last console lines:\n${text.split("\n").slice(-40).join("\n")}`);
      expect(text).toContain("GRUB");
      expect(marker.slice(1)).toEqual(["realos-lab", "/dev/md2", "running", "grub"]);
      process.stdout.write(
        `disk boot marker after ${Math.round((Date.now() - t0) / 1000)} s: ${marker[0]}\nfirst boot option: ${/BdsDxe: (?:loading|starting) Boot[0-9A-F]{4} "[^"]*" from \S+/.exec(text)?.[0] ?? "?"}\n`,
      );
    },
    DISK_BOOT_BOUND_MS + 30_000,
  );
});
