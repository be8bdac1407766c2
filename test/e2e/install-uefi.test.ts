/**
 * The install on UEFI, then a power cycle that boots the installed OS from the disk by
 * UEFI itself (`make test-install-uefi` alone; `make test` runs it too: ~60 s a scenario
 * under TCG). Two scenarios:
 * - the image's own /install.sh writes its entry with efibootmgr and leaves it last: the
 *   agent puts it first;
 * - the image has no installer (as metal-images build theirs now): the test initramfs's
 *   carried installer runs in os-installer's shape, `grub-install --removable`, GRUB as
 *   EFI/BOOT/BOOTX64.EFI and no NVRAM entry (issue 34): the agent writes the entry, as
 *   efibootmgr would, and puts it first; the power cycle boots through it, not through
 *   the firmware's removable-media fallback.
 *
 * 0. A first power-on without a disk, with the lab's first NIC: OVMF writes its network
 *    boot options (PXE, HTTP boot) into the VM's variable store and tries PXE; stopped there.
 * 1. The QEMU lab on OVMF (the same variable store): the agent as PID 1
 *    registers, is allocated the UEFI layout (ESP vfat at /boot/efi + ext4 root,
 *    stand-ins --esp) and the test OS image built with GRUB's EFI build (build.ts efi),
 *    builds the layout, streams the image, runs its installer with efivarfs in its chroot
 *    (which writes EFI/testos/grubx64.efi to the ESP, /boot/grub/grub.cfg to the root, and
 *    a boot entry "testos" with efibootmgr, left last in BootOrder), sets the boot order
 *    (the entry named by boot-info's bootloader_id first, then the network entries), reports InstallationSucceeded
 *    and kexecs into the installed kernel.
 * 2. Power off, then a new QEMU on the same disk and the same NVRAM, without a kernel,
 *    an initrd or a NIC: OVMF starts that entry first (there is no fallback loader on the
 *    ESP), GRUB finds the installed root and boots its kernel with the disk-boot marker.
 * Needs root, QEMU, OVMF, grub-efi-amd64-bin, efibootmgr, the lab kernel and initramfs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LAB_INITRD, LAB_KERNEL } from "../../lab/base/kernel.ts";
import type { LabResult } from "../../lab/direct/lab.ts";
import { runInstall } from "../../lab/direct/install-run.ts";
import { LAB_UUID, guestMac } from "../../lab/rig/plan.ts";
import { labMissing } from "../../lab/base/prereqs.ts";
import { ovmfArgs, ovmfMissing, OVMF_VARS } from "../../lab/base/ovmf.ts";
import { Proc } from "../../lab/ipxe/lab-process.ts";
import { waitFor } from "../../lab/base/wait.ts";
import { bootName } from "../../src/install/efi/load-option.ts";
import { qemuMachineArgv } from "../../lab/base/qemu.ts";
import { STAGES } from "../../src/config/stages.ts";

const KVER = LAB_KERNEL.replace(/^.*vmlinux-/, "");
const BZIMAGE = `/boot/vmlinuz-${KVER}`;
const missing = labMissing([
  ovmfMissing() || undefined,
  Bun.which("grub-mkstandalone") ? undefined : "grub-mkstandalone (apt-get install grub-efi-amd64-bin)",
  existsSync("/usr/bin/efibootmgr") ? undefined : "/usr/bin/efibootmgr (apt-get install efibootmgr)",
  existsSync(BZIMAGE) ? undefined : `${BZIMAGE} (OVMF boots the bzImage; the installed OS's kernel)`,
  carriesTestInstaller() ? undefined : `the test installer in ${LAB_INITRD} (make test boots build/initramfs/initramfs-<kver>-test.cpio.lz4, which carries it)`,
]);

/** The initramfs the lab boots carries the test installer (its manifest's header says so). */
function carriesTestInstaller(): boolean {
  try {
    return readFileSync(`${LAB_INITRD}.manifest`, "utf8").includes("\n# os-installer: test-installer ");
  } catch {
    return false;
  }
}
if (missing.length > 0 && process.env.CI === "true") throw new Error(`e2e UEFI install cannot run under CI: missing ${missing.join(", ")}`);

const INSTALL_BOUND_MS = 300_000;
const FIRST_POWER_ON_BOUND_MS = 120_000;
const DISK_BOOT_BOUND_MS = 180_000;
const ev = (r: LabResult, event: string) => r.records.filter((x) => x.event === event);

/** What differs between the two scenarios. */
interface Scenario {
  readonly title: string;
  /** Where the test image carries its installer: /install.sh, or none (the initramfs's carried one runs). */
  readonly installer: "/install.sh" | "none";
  readonly choice: "image" | "carried";
  /** boot-info's bootloader_id: the entry's description. */
  readonly bootloaderId: string;
  /** The installer's own line about GRUB on the ESP. */
  readonly installerLine: string;
  /** Who wrote the entry: the image's installer (left last) or the agent (none before). */
  readonly entryBy: "installer" | "agent";
  /** The loader the first boot option names on the ESP. */
  readonly loader: RegExp;
}

const SCENARIOS: readonly Scenario[] = [
  {
    title: "the image's installer writes its boot entry",
    installer: "/install.sh",
    choice: "image",
    bootloaderId: "testos",
    installerLine: "installer: UEFI boot entry testos written for /dev/vda partition 1: /boot/efi/EFI/testos/grubx64.efi",
    entryBy: "installer",
    loader: /\\EFI\\testos\\grubx64\.efi$/,
  },
  {
    title: "an image without an installer, the carried one as os-installer: --removable, no NVRAM entry, the agent writes it",
    installer: "none",
    choice: "carried",
    bootloaderId: "metal-testos",
    installerLine: "installer: grub-install --removable --bootloader-id=metal-testos: /boot/efi/EFI/BOOT/BOOTX64.EFI",
    entryBy: "agent",
    loader: /\\EFI\\BOOT\\BOOTX64\.EFI$/,
  },
];

for (const sc of SCENARIOS)
  describe.skipIf(missing.length > 0)(
    `UEFI: install, power cycle, the installed OS boots from disk: ${sc.title}${missing.length ? ` (skipped: missing ${missing.join(", ")})` : ""}`,
    () => {
      let dir: string;
      let disk: string;
      let r: LabResult;
      let diskBoot: Proc | undefined;
      /** The #### of the installer's entry, first in the BootOrder the agent wrote. */
      let testosEntry = -1;
      // No bootindex: QEMU would hand OVMF a boot order of its own (fw_cfg bootorder), which OVMF writes over BootOrder on every boot.
      const diskArgs = (d: string) => ["-drive", `file=${d},if=none,id=d0,format=raw`, "-device", "virtio-blk-pci,drive=d0"];

      /** The machine's first power-on, as a new server's: OVMF enumerates the lab's first NIC and writes its network boot options. */
      let firstPowerOn = "";
      const qemuBase = [...qemuMachineArgv(512)];

      beforeAll(
        async () => {
          dir = mkdtempSync(join(tmpdir(), "mh-e2e-install-uefi-"));
          // The lab boots with -kernel, and OVMF then writes no network boot options: this power-on
          // (the lab's first NIC, same model and MAC, a user-mode network that reaches nothing) stops
          // once OVMF tries PXE, so the NVRAM holds PXE and HTTP entries, as a server's does.
          const pre = new Proc("first-power-on", [
            ...qemuBase,
            ...ovmfArgs(dir, "vm"),
            "-netdev",
            "user,id=n0,restrict=on",
            "-device",
            `virtio-net-pci,netdev=n0,mac=${guestMac(0)},romfile=`,
          ]);
          try {
            await waitFor(() => pre.text().includes("Start PXE over IPv4") || pre.exitCode !== null, FIRST_POWER_ON_BOUND_MS, "OVMF's first power-on to try PXE");
            firstPowerOn = pre.text();
          } finally {
            await pre.stop();
          }
          ({ r, disk } = await runInstall(dir, {
            kernel: BZIMAGE,
            timeoutMs: INSTALL_BOUND_MS,
            uefi: true,
            installer: sc.installer,
            diskQemu: diskArgs,
            // OVMF starts the kernel through its EFI stub: the bzImage, not the lab's ELF vmlinux.
            run: { kernel: BZIMAGE, extraQemu: ovmfArgs(dir, "vm") },
          }));
        },
        FIRST_POWER_ON_BOUND_MS + INSTALL_BOUND_MS + 60_000,
      );

      afterAll(async () => {
        await diskBoot?.stop().catch(() => undefined);
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      test("the install on UEFI: layout with the ESP, image, installer wrote the boot loader, InstallationSucceeded, kexec", () => {
        expect(ev(r, "agent.fatal")).toEqual([]);
        expect(ev(r, "agent.stage").map((s) => s.stage)).toEqual([...STAGES]);
        // The kernel the lab booted came up on UEFI (OVMF), not SeaBIOS: any of the kernel's EFI
        // lines, as the first lines on the serial console can lose characters under load (seen in CI).
        const efiLines = [/efi: EFI v[0-9.]+ by EDK II/, /efi: .*SMBIOS=0x[0-9a-f]+ .*ACPI/, /secureboot: Secure boot (disabled|enabled|could not be determined)/];
        expect(r.lines.some((l) => efiLines.some((re) => re.test(l.text)))).toBe(true);
        expect(ev(r, "disk.layout.done")).toHaveLength(1);
        expect(ev(r, "install.installer.choice").map((c) => c.kind)).toEqual([sc.choice]);
        expect(ev(r, "install.installer.output").map((l) => String(l.line))).toContain(sc.installerLine);
        const [order] = ev(r, "install.boot_order");
        expect(order?.bootloaderId).toBe(sc.bootloaderId);
        expect(order?.changed).toBe(true);
        testosEntry = (order?.order as number[])[0]!;
        const old = order?.old as number[];
        const was = String(order?.msg).slice(String(order?.msg).indexOf(" (was:"));
        if (sc.entryBy === "installer") {
          // The installer left its entry last; the agent wrote BootOrder with it first (before InstallationSucceeded).
          expect(String(order?.msg)).toMatch(/^UEFI boot order set: Boot[0-9A-F]{4} "testos", .* \(was: .*, Boot[0-9A-F]{4} "testos"\)$/);
          expect(old.at(-1)).toBe(testosEntry);
        } else {
          // No entry of the installed OS before: the agent wrote one (HD() of the ESP + the loader the installer wrote) and put it first.
          expect(was).not.toContain(`"${sc.bootloaderId}"`);
          expect(old).not.toContain(testosEntry);
          expect(String(order?.msg)).toStartWith(`UEFI boot order set: ${bootName(testosEntry)} "${sc.bootloaderId}", `);
        }
        expect(firstPowerOn).toContain("Start PXE over IPv4");
        // Then OVMF's network entries (PXE, HTTP boot, each v4 and v6), then the rest in their old order.
        const msg = String(order?.msg);
        const mac = guestMac(0).replaceAll(":", "").toUpperCase();
        const listed = [...msg.slice(0, msg.indexOf(" (was:")).matchAll(/Boot[0-9A-F]{4} "([^"]*)"/g)].map((m) => m[1]);
        expect(listed.slice(0, 5)).toEqual([sc.bootloaderId, ...["PXEv4", "PXEv6", "HTTPv4", "HTTPv6"].map((p) => `UEFI ${p} (MAC:${mac})`)]);
        expect(listed.slice(5).every((d) => !d?.startsWith("UEFI PXE") && !d?.startsWith("UEFI HTTP"))).toBe(true);
        expect(new Set(order?.order as number[])).toEqual(new Set(sc.entryBy === "installer" ? old : [...old, testosEntry]));
        console.log(`boot order line: ${String(order?.msg)}`);
        const names = r.records.map((x) => (x.event === "agent.stage" ? `stage ${String(x.stage)}` : String(x.event)));
        expect(names.indexOf("install.boot_order")).toBeLessThan(names.indexOf("stage installed"));
        expect(ev(r, "install.kexec")).toHaveLength(1);
        // Either of the kexec'd kernel's two cmdline lines (see test/e2e/install.test.ts: a character can be lost in the first).
        expect(r.lines.some((l) => /(Kernel c|C)ommand line: .*TESTOS_MARKER=installed-/.test(l.text))).toBe(true);
      });

      test(
        "after a power cycle OVMF boots the installed OS from the disk (no kernel, initrd or NIC given): the entry the agent put first, GRUB from the ESP, the installed kernel with the disk-boot marker",
        async () => {
          const vars = join(dir, "vm-OVMF_VARS.fd");
          // The same NVRAM the first boot used (ovmfArgs keeps the VM's copy), written by the firmware.
          expect(readFileSync(vars).equals(readFileSync(OVMF_VARS))).toBe(false);
          diskBoot = new Proc("disk-boot", [...qemuBase, ...ovmfArgs(dir, "vm"), ...diskArgs(disk)]);
          const marker = `TESTOS_MARKER=disk-boot-${LAB_UUID}`;
          // The installed OS's init (its initrd, named in GRUB's config by the installer) prints its command line, then powers off.
          const up = (t: string) => t.split("\n").some((l) => l.startsWith("testos: up: ") && l.includes(marker));
          await waitFor(() => up(diskBoot?.text() ?? "") || diskBoot?.exitCode !== null, DISK_BOOT_BOUND_MS, "the installed OS's first line from a disk boot");
          const text = diskBoot.text();
          // The first boot option OVMF tries is the entry the agent put first, not the firmware's removable-media fallback ("UEFI Misc Device").
          const first = /BdsDxe: (?:loading|starting) (Boot[0-9A-F]{4}) "([^"]*)" from (\S+)/.exec(text);
          const name = bootName(testosEntry);
          expect(first?.slice(1, 3)).toEqual([name, sc.bootloaderId]);
          expect(first?.[3]).toMatch(/^HD\(1,GPT,[0-9A-F-]{36},0x800,0x80000\)\//);
          expect(first?.[3]).toMatch(sc.loader);
          expect(text).toContain(`BdsDxe: starting ${name} "${sc.bootloaderId}"`);
          expect(text).not.toContain("UEFI Misc Device");
          expect(text).not.toContain("DVD-ROM");
          expect(text).toContain("Welcome to GRUB!");
          // Either of the kernel's two cmdline prints: the first comes before the serial port is
          // fully up and can lose characters under load (measured: "TESTOS_MARKER=disk-t-..." once).
          expect(text).toMatch(new RegExp(`(Kernel c|C)ommand line: .*${marker}`));
          expect(up(text)).toBe(true);
        },
        DISK_BOOT_BOUND_MS + 30_000,
      );
    },
  );
