/**
 * The real OS in the QEMU lab (`make test-realos-e2e OS_INSTALLER=PATH [LAYOUT=raid1|single]`):
 * the agent as PID 1 on OVMF, its initramfs carrying os-installer (`<initrd>.manifest`
 * says which), is allocated one of the lab's layouts (realos-layout.ts) and the lab's
 * Debian image (`make debian-image`: no installer in it, as metal-images build theirs),
 * streams it, copies the carried os-installer in as /os-installer and runs it (with
 * RAID: mdadm.conf, update-initramfs, efibootmgr per disk; always `grub-install
 * --removable`), writes the UEFI boot entry os-installer did not (or replaces its dead
 * ones), then the machine comes up twice:
 * 1. kexec into the installed kernel and initrd from boot-info.yaml: Debian's initramfs
 *    (with RAID: assembles the arrays) mounts root by UUID; systemd reaches its marker unit;
 * 2. a power cycle (same disks and NVRAM, no kernel, no NIC): OVMF starts the entry the
 *    agent put first (not its removable-media fallback), GRUB, the same system, the marker.
 * Each boot is proven from the console by the marker line of lab/images/debian.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Proc } from "../../lab/ipxe/lab-process.ts";
import { LAB_INITRD, LAB_KERNEL } from "../../lab/base/kernel.ts";
import { defaultRun, runLab, type LabResult } from "../../lab/direct/lab.ts";
import { ovmfArgs, ovmfMissing } from "../../lab/base/ovmf.ts";
import { labMissing } from "../../lab/base/prereqs.ts";
import { standinServers } from "../../lab/standins/servers.ts";
import { waitFor } from "../../lab/base/wait.ts";
import { parseOsInstallerLog } from "../../src/install/os-installer-log.ts";
import { bootName } from "../../src/install/efi/load-option.ts";
import { qemuMachineArgv } from "../../lab/base/qemu.ts";
import { STAGES } from "../../src/config/stages.ts";
import { carriedInManifest, firstBootOption, hdPartitionGuid, realosLayout } from "./realos-layout.ts";

const REPO = join(import.meta.dir, "../..");
const IMAGE = join(REPO, "build/debian/img.tar.lz4");
const LAYOUT = realosLayout(process.env.REALOS_LAYOUT);
const ALLOCATION = join(REPO, LAYOUT.allocation);
const KVER = LAB_KERNEL.replace(/^.*vmlinux-/, "");
const BZIMAGE = `/boot/vmlinuz-${KVER}`;
const manifest = existsSync(`${LAB_INITRD}.manifest`) ? readFileSync(`${LAB_INITRD}.manifest`, "utf8") : "";
const carried = carriedInManifest(manifest);
const missing = labMissing([
  ovmfMissing() || undefined,
  existsSync(IMAGE) ? undefined : `${IMAGE} (make debian-image)`,
  existsSync(BZIMAGE) ? undefined : BZIMAGE,
  carried?.name === "os-installer"
    ? undefined
    : `an os-installer in ${LAB_INITRD} (its manifest says ${carried ? carried.describe : "none"}; make test-realos-e2e OS_INSTALLER=PATH builds it with one)`,
]);

const INSTALL_BOUND_MS = 1_500_000;
const DISK_BOOT_BOUND_MS = 600_000;
const DISK_BYTES = 4 * 2 ** 30;
const MARKER = /metal-lab-marker: hostname=(\S+) root=(\S+) state=(\S+) boot=(\S+)/;
const BOOTLOADER_ID = "metal-debian";
const ev = (r: LabResult, event: string) => r.records.filter((x) => x.event === event);

describe(`the real Debian through the carried os-installer on UEFI, layout ${LAYOUT.name}`, () => {
  test("prerequisites", () => expect(missing).toEqual([]));
  if (missing.length > 0) return;

  let dir: string;
  let r: LabResult;
  let disks: string[];
  let diskBoot: Proc | undefined;
  /** The entries the agent wrote, by number: their device path as efivar prints it. */
  const written = new Map<string, string>();
  let firstInOrder = "";
  const diskArgs = () => disks.flatMap((d, i) => ["-drive", `file=${d},if=none,id=d${i},format=raw`, "-device", `virtio-blk-pci,drive=d${i}`]);
  const started = Date.now();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mh-realos-e2e-"));
    disks = LAYOUT.disks.map((n) => join(dir, `${n}.raw`));
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

  test(`install: the ${LAYOUT.name} layout, the image, the carried os-installer's tasks, the boot entry, InstallationSucceeded, kexec to the marker`, () => {
    const lines = ev(r, "install.installer.output").map((l) => String(l.line));
    const run = parseOsInstallerLog(lines);
    process.stdout.write(`initramfs carries: ${carried?.describe}\n`);
    process.stdout.write(`os-installer tasks (${run.tasks.length}, ${run.took ?? "?"}):\n${run.tasks.map((t) => `  ${String(t.ms).padStart(7)} ms  ${t.name}`).join("\n")}\n`);
    const stages = ev(r, "agent.stage").map((s) => `${String(s.stage)} ${String(s.ms ?? "")}`);
    process.stdout.write(`stages: ${stages.join(", ")}\n`);
    expect(ev(r, "agent.fatal")).toEqual([]);
    // The image has no installer: the one the initramfs carries ran, copied in as /os-installer.
    const choice = ev(r, "install.installer.choice");
    expect(choice.map((c) => [c.kind, c.binary])).toEqual([["carried", "/os-installer"]]);
    expect(String(choice[0]?.reason)).toContain(`the ${carried?.describe} this initramfs carries, copied in as /os-installer`);
    expect(run.failed).toBeUndefined();
    expect(run.succeeded).toBe(true);
    expect(ev(r, "agent.stage").map((s) => s.stage)).toEqual([...STAGES]);
    // raidenabled: the mdadm scan, the initramfs rebuilt with it, one boot entry per disk with PARTLABEL="efi"; without RAID neither.
    const efibootmgr = lines.filter((l) => l.includes('"command":"efibootmgr -c -d /dev/vd')).length;
    expect([lines.some((l) => l.includes('"command":"update-initramfs -u"')), efibootmgr]).toEqual(LAYOUT.raid ? [true, LAYOUT.disks.length] : [false, 0]);

    // The boot order: the agent's own entries for EFI/BOOT/BOOTX64.EFI (grub-install --removable wrote only that), one per ESP partition, first.
    const [order] = ev(r, "install.boot_order");
    process.stdout.write(`boot order line: ${String(order?.msg)}\n`);
    expect(order?.bootloaderId).toBe(BOOTLOADER_ID);
    const entries = ev(r, "install.boot_entry");
    for (const e of entries) process.stdout.write(`boot entry line: ${String(e.msg)}\n`);
    const writes = entries.filter((e) => e.deleted !== true);
    expect(writes.map((e) => [e.partition, e.description]).sort()).toEqual(LAYOUT.espPartitions.map((p) => [p, BOOTLOADER_ID]));
    for (const w of writes) {
      expect(String(w.path)).toMatch(/^HD\(1,GPT,[0-9a-f-]{36},0x800,0x80000\)\/File\(\\EFI\\BOOT\\BOOTX64\.EFI\)$/);
      written.set(String(w.entry), String(w.path));
    }
    expect((order?.order as number[]).slice(0, writes.length).map(bootName).sort()).toEqual([...written.keys()].sort());
    firstInOrder = bootName((order?.order as number[])[0]!);
    // os-installer's RAID entries name \EFI\metal-debian\grubx64.efi, which --removable never writes: deleted, one per efibootmgr call.
    expect(order?.deleted).toHaveLength(efibootmgr);
    expect(entries.filter((e) => e.deleted === true)).toHaveLength(efibootmgr);

    const marker = r.lines.map((l) => MARKER.exec(l.text)).find((m) => m !== null);
    if (!marker)
      throw new Error(
        `no marker after the kexec; last console lines:\n${r.lines
          .slice(-40)
          .map((l) => l.text)
          .join("\n")}`,
      );
    expect(marker.slice(1)).toEqual(["realos-lab", LAYOUT.root, "running", "kexec"]);
    process.stdout.write(`kexec boot marker after ${Math.round((Date.now() - started) / 1000)} s: ${marker[0]}\n`);
  });

  test(
    "a power cycle: OVMF starts the boot entry the agent put first, GRUB from the ESP, the same system, to the marker",
    async () => {
      const t0 = Date.now();
      diskBoot = new Proc("disk-boot", [...qemuMachineArgv(2048), ...ovmfArgs(dir, "vm"), ...diskArgs()]);
      await waitFor(() => MARKER.test(diskBoot?.text() ?? "") || diskBoot?.exitCode !== null, DISK_BOOT_BOUND_MS, "the installed Debian's marker line from a disk boot");
      const text = diskBoot.text();
      const marker = MARKER.exec(text);
      const first = firstBootOption(text);
      process.stdout.write(`first boot option: ${first?.line ?? "?"}\n`);
      if (!marker) throw new Error(`no marker from the disk boot; last console lines:\n${text.split("\n").slice(-40).join("\n")}`);
      // The agent's entry, not the firmware's removable-media fallback ("UEFI Misc Device") that served before it wrote one.
      expect([first?.entry, first?.description]).toEqual([firstInOrder, BOOTLOADER_ID]);
      expect(first?.path).toMatch(/^HD\(1,GPT,[0-9A-F-]{36},0x800,0x80000\)\/\\EFI\\BOOT\\BOOTX64\.EFI$/);
      // The same partition (GPT unique GUID) as the entry the agent wrote under that number.
      const guid = hdPartitionGuid(written.get(firstInOrder) ?? "");
      expect(guid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(hdPartitionGuid(first?.path ?? "")).toBe(guid!);
      expect(text).not.toContain("UEFI Misc Device");
      expect(text).toContain("GRUB");
      expect(marker.slice(1)).toEqual(["realos-lab", LAYOUT.root, "running", "grub"]);
      process.stdout.write(`disk boot marker after ${Math.round((Date.now() - t0) / 1000)} s: ${marker[0]}\n`);
    },
    DISK_BOOT_BOUND_MS + 30_000,
  );
});
