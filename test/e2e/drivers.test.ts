/**
 * End to end: PID 1 loads the drivers of the devices present, and only those. QEMU
 * emulates NICs and storage controllers of several vendors at once (Intel e1000e,
 * VMware vmxnet3, virtio-net; NVMe, the q35 board's Intel ICH9 AHCI, Broadcom/LSI
 * MegaRAID and SAS1068, virtio-scsi), each with a disk where it takes one. (QEMU 7.2,
 * Debian 12's, has no igb model.) The agent's init.devices line
 * (every PCI device with vendor:device and its bound driver, read from
 * /sys/bus/pci/devices/<slot>/driver) and its init.module lines are the evidence:
 * each device's driver is bound, and the loaded modules are exactly the boot list,
 * the matched drivers and their dependencies. The flow itself is cut short by a bad
 * METAL_NET_TIMEOUT (a config error after module loading), so the VM reboots at once.
 * Needs root, /dev/net/tun, QEMU and the built artifacts (`make test` builds them).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { prerequisites } from "../helpers/prerequisites.ts";
import { defaultRun, runLab, type LabResult } from "../../lab/direct/lab.ts";
import { DEFAULT_INITRD, KVER, LAB_KERNEL } from "../../lab/base/kernel.ts";
import { loadSteps } from "../../src/init/coldplug.ts";
import { parseModulesAlias } from "../../src/kernel/kmod/alias.ts";
import { parseModulesDep } from "../../src/kernel/kmod/dep.ts";
import { parseModuleList } from "../../src/kernel/kmod/names.ts";
import { parseModulesSoftdep, resolveSoftdeps } from "../../src/kernel/kmod/softdep.ts";

const ready = prerequisites("the drivers e2e", [
  process.getuid?.() !== 0 && "root",
  !existsSync("/dev/net/tun") && "/dev/net/tun",
  !Bun.which("qemu-system-x86_64") && "qemu-system-x86_64",
  !existsSync(LAB_KERNEL) && `${LAB_KERNEL} (make lab-kernel)`,
  !existsSync(DEFAULT_INITRD) && `${DEFAULT_INITRD} (make initramfs)`,
  !existsSync(`/lib/modules/${KVER}/modules.dep`) && `/lib/modules/${KVER} (make deps)`,
]);

const BOOT_BOUND_MS = 180_000;

/** PCI vendor:device as sysfs shows it -> the driver that must bind (as /sys/bus/pci/drivers names it) and its module. */
const DEVICES = [
  { qemu: "e1000e", id: "8086:10d3", driver: "e1000e", module: "e1000e" },
  { qemu: "vmxnet3", id: "15ad:07b0", driver: "vmxnet3", module: "vmxnet3" },
  { qemu: "nvme", id: "1b36:0010", driver: "nvme", module: "nvme" },
  { qemu: "megasas", id: "1000:0060", driver: "megaraid_sas", module: "megaraid_sas" },
  { qemu: "mptsas1068", id: "1000:0054", driver: "mptsas", module: "mptsas" },
  { qemu: "(q35 board) ich9-ahci", id: "8086:2922", driver: "ahci", module: "ahci" },
  { qemu: "virtio-net-pci (the lab NIC)", id: "1af4:1000", driver: "virtio-pci", module: "virtio_pci" },
  { qemu: "virtio-scsi-pci", id: "1af4:1004", driver: "virtio-pci", module: "virtio_pci" },
] as const;

/** Small disks from QEMU's null block driver (no image files): one behind each storage controller. */
const disk = (id: string): string[] => ["-blockdev", `driver=null-co,node-name=${id},size=67108864`];
const EXTRA_QEMU = [
  "-device",
  "e1000e,mac=52:54:00:6d:69:01,romfile=",
  "-device",
  "vmxnet3,mac=52:54:00:6d:69:03,romfile=",
  ...disk("d0"),
  "-device",
  "nvme,drive=d0,serial=mhl-nvme0",
  ...disk("d1"),
  "-device",
  "ide-hd,drive=d1,bus=ide.0",
  ...disk("d2"),
  "-device",
  "megasas,id=mega0",
  "-device",
  "scsi-hd,drive=d2,bus=mega0.0",
  ...disk("d3"),
  "-device",
  "mptsas1068,id=mpt0",
  "-device",
  "scsi-hd,drive=d3,bus=mpt0.0",
  ...disk("d4"),
  "-device",
  "virtio-scsi-pci,id=vscsi0",
  "-device",
  "scsi-hd,drive=d4,bus=vscsi0.0",
];

interface PciLine {
  slot: string;
  id: string;
  driver: string | null;
}

describe.skipIf(!ready)("QEMU: drivers for the devices present, nothing else", () => {
  let r: LabResult;
  let devices: { loaded: string[]; failed: string[]; absent: string[]; pci: PciLine[] };
  beforeAll(async () => {
    r = await runLab(
      defaultRun({
        kernel: LAB_KERNEL,
        initrd: DEFAULT_INITRD,
        live: false,
        timeoutMs: BOOT_BOUND_MS,
        servers: () => [],
        ra: false,
        expect: "reboot",
        // A config error right after module loading: the agent reboots (1 s delay), QEMU exits.
        extraCmdline: ["METAL_NET_TIMEOUT=not-a-duration"],
        extraQemu: EXTRA_QEMU,
      }),
    );
    const line = r.records.find((x) => x.event === "init.devices");
    if (!line) throw new Error(`no init.devices line on the console (outcome ${r.outcome}); console in ${r.dir}/console.log`);
    devices = line as unknown as typeof devices;
  }, BOOT_BOUND_MS + 30_000);

  test("every emulated NIC and storage controller has its driver bound", () => {
    for (const d of DEVICES) {
      const dev = devices.pci.find((p) => p.id === d.id);
      expect([d.qemu, dev?.driver ?? "(no such PCI device)"]).toEqual([d.qemu, d.driver]);
    }
  });

  test("the loaded modules are exactly the boot list, the matched drivers, their dependencies and softdeps", () => {
    const tree = `/lib/modules/${KVER}`;
    const dep = parseModulesDep(readFileSync(`${tree}/modules.dep`, "utf8"));
    const soft = resolveSoftdeps(
      parseModulesSoftdep(readFileSync(`${tree}/modules.softdep`, "utf8")),
      parseModulesAlias(readFileSync(`${tree}/modules.alias`, "utf8")),
      new Set(dep.keys()),
    );
    const boot = parseModuleList(readFileSync("initramfs/modules/boot.list", "utf8"), "boot.list");
    // virtio_net and virtio_scsi drive the virtio devices virtio_pci makes for the lab NIC and the virtio-scsi controller.
    const drivers = [...DEVICES.map((d) => d.module), "virtio_net", "virtio_scsi"];
    const expected = loadSteps(
      dep,
      [...boot, ...drivers].map((module) => ({ module, reason: { kind: "boot" as const } })),
      new Set(),
      soft,
    ).map((s) => s.module.name);
    expect(devices.failed).toEqual([]);
    // SeaBIOS boots without UEFI: efivarfs refuses with ENODEV, logged as absent, not as a failure.
    expect(devices.absent).toEqual(["efivarfs"]);
    expect([...devices.loaded, ...devices.absent].sort()).toEqual([...new Set(expected)].sort());
    // Each load is logged with its reason: a device's sysfs path, the boot list, or a dependency.
    const loads = r.records.filter((x) => x.event === "init.module" && typeof x.module === "string");
    for (const d of DEVICES) expect([d.module, String(loads.find((x) => x.module === d.module)?.for)]).toEqual([d.module, expect.stringMatching(/^\/sys\/bus\/pci\/devices\//)]);
    for (const m of ["virtio_net", "virtio_scsi"]) expect(loads.find((x) => x.module === m)?.for).toMatch(/^\/sys\/bus\/virtio\/devices\/virtio\d+$/);
    for (const m of boot) expect([m, loads.find((x) => x.module === m)?.for]).toEqual([m, "boot list"]);
  });

  // The config error this boot ends with is also the lab's "fatal error with DEBUG off" case (one boot for both).
  test("the config error: reported with its code and exit code; DEBUG off, PID 1 waits the delay and reboots, QEMU exits (-no-reboot)", () => {
    expect(r.records.find((x) => x.event === "agent.fatal")).toMatchObject({ code: "usage", exitCode: 2, parameter: "METAL_NET_TIMEOUT" });
    expect(r.records.find((x) => x.event === "init.reboot")).toMatchObject({ action: "reboot", delayMs: 1000, reason: "fatal error: usage" });
    expect(r.records.at(-1)).toMatchObject({ event: "init.reboot", action: "reboot", msg: "reboot now" });
    expect(r.outcome).toBe("reboot");
    expect(r.exitCode).toBe(0);
  });

  test("no module failed, no firmware is missing for these devices, and the run ended as planned", () => {
    expect(r.records.filter((x) => (x.event === "init.module" || x.event === "init.firmware") && Number(x.level) >= 40)).toEqual([]);
    expect(r.records.find((x) => x.event === "agent.fatal")).toMatchObject({ code: "usage" });
    expect(r.outcome).toBe("reboot");
    expect(r.lines.some((l) => /Kernel panic/.test(l.text))).toBe(false);
  });
});
