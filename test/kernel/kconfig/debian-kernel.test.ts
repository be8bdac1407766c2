/**
 * The checker's verdict on the Debian kernel the lab boots (linux-image-amd64, installed
 * by `make deps`), option by option: without a module set, with the lab's initramfs
 * module list (initramfs/modules/<version>.list) and with the kernel's whole module
 * tree. Runs the real command through runCli with real file reads.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createContext, processIo } from "../../../src/platform/io/context.ts";
import { runCli } from "../../../src/cli/program.ts";
import { EXIT_CODES } from "../../../src/platform/exit-codes.ts";
import type { OptionResult, Report } from "../../../src/kernel/kconfig/evaluate.ts";
import { BUILTIN_FRAGMENT_TEXT } from "../../../src/kernel/kconfig/builtin-fragment.ts";
import { parseFragment } from "../../../src/kernel/kconfig/fragment.ts";
import { moduleNameOfFile, parseModuleList } from "../../../src/kernel/kmod/names.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";

const ROOT = new URL("../../..", import.meta.url).pathname;
const versionOf = (f: string) => f.slice("config-".length);
const newestConfig = (() => {
  const configs = existsSync("/boot") ? readdirSync("/boot").filter((f) => f.startsWith("config-")) : [];
  configs.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return configs.at(-1);
})();
const SKIP = newestConfig === undefined;
const CONFIG = newestConfig === undefined ? "" : `/boot/${newestConfig}`;
const VERSION = newestConfig === undefined ? "" : versionOf(newestConfig);
/**
 * The module set the initramfs ships for this kernel: what the builder resolves (the
 * fragment's modules, the boot list, their dependencies), read from the manifest of an
 * image built with a stand-in agent.
 */
function shippedModules(): string {
  const dir = mkdtempSync(`${tmpdir()}/mhl-kconfig-`);
  try {
    const out = `${dir}/i.cpio`;
    const r = Bun.spawnSync([process.execPath, "initramfs/build.ts", "--agent", "/usr/bin/true", "--kver", VERSION, "--compress", "none", "--out", out], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    if (r.exitCode !== 0) throw new Error(`initramfs build failed: ${r.stderr.toString()}`);
    const line = readFileSync(`${out}.manifest`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("# modules: "));
    if (!line) throw new Error("no modules line in the manifest");
    return line.slice("# modules: ".length).trim().split(" ").join(",");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The lab's module set: virtio-net in the load order Debian's modules need, and e1000 (docs/kconfig.md), for the explicit finding. */
const LAB_MODULES = "virtio_ring,virtio,virtio_pci_modern_dev,virtio_pci_legacy_dev,virtio_pci,failover,net_failover,virtio_net,e1000";

async function check(...extra: string[]): Promise<{ code: number; report: Report; by: (o: string) => OptionResult; err: string }> {
  let out = "";
  let err = "";
  const ctx = createContext({ ...processIo(), out: (t) => void (out += t), err: (t) => void (err += t) });
  const code = await runCli(["kconfig", "check", "--config", CONFIG, "--json", ...extra], ctx);
  const report = JSON.parse(out) as Report;
  const by = (o: string): OptionResult => {
    const r = report.results.find((x) => x.option === o);
    if (!r) throw new Error(`no result for ${o}`);
    return r;
  };
  return { code, report, by, err };
}

const BUILTIN_OK = [
  "BLK_DEV_INITRD",
  "RD_GZIP",
  "RD_LZ4",
  "RD_ZSTD",
  "DEVTMPFS",
  "TMPFS",
  "PROC_FS",
  "SYSFS",
  "IPV6",
  "UNIX",
  "PACKET",
  "EPOLL",
  "EVENTFD",
  "TIMERFD",
  "FUTEX",
  "BINFMT_ELF",
  "SERIAL_8250_CONSOLE",
  "EFI_STUB",
  "KEXEC_FILE",
  "DMIID",
];
const RA_FEATURES = ["IPV6_OPTIMISTIC_DAD", "IPV6_ROUTER_PREF", "IPV6_ROUTE_INFO"];
/** Required options Debian builds as modules and the lab set carries. */
const LAB_MODULE_OPTIONS = ["VIRTIO_NET", "VIRTIO", "VIRTIO_PCI", "E1000"];
/** Required options Debian builds as modules that the lab set lacks: the finding. */
const NOT_IN_LAB = [
  "E1000E",
  "IGB",
  "IXGBE",
  "I40E",
  "ICE",
  "MLX5_CORE",
  "BNXT",
  "MLX4_EN",
  "TIGON3",
  "BE2NET",
  "VMXNET3",
  "BLK_DEV_NVME",
  "ATA",
  "SATA_AHCI",
  "SCSI",
  "BLK_DEV_SD",
  "VIRTIO_BLK",
  "MEGARAID_SAS",
  "SCSI_MPT3SAS",
  "SCSI_HPSA",
  "SCSI_SMARTPQI",
  "SCSI_VIRTIO",
  "BLK_DEV_MD",
  "MD_RAID1",
  "MD_RAID0",
  "BLK_DEV_DM",
  "DM_RAID",
  "EXT4_FS",
  "VFAT_FS",
  "NLS_CODEPAGE_437",
  "NLS_ISO8859_1",
  "EFIVAR_FS",
  "WATCHDOG_CORE",
  "NET_VRF",
];

prerequisites("the Debian kernel check", [SKIP && "/boot/config-* (make deps installs linux-image-amd64)"]);

describe.skipIf(SKIP)(`Debian kernel ${VERSION || "(skipped: no /boot/config-* on this machine; make deps installs linux-image-amd64)"}`, () => {
  test("without --modules: passes, IPv6 and the RA features built in, every =m counted as unverified, only IP_PNP warnings", async () => {
    const { code, report, by } = await check();
    expect(code).toBe(0);
    expect(report.verdict).toBe("pass");
    for (const o of BUILTIN_OK) expect([o, by(o).actual, by(o).status]).toEqual([o, "y", "pass"]);
    for (const o of RA_FEATURES) expect([o, by(o).actual, by(o).status]).toEqual([o, "y", "pass"]);
    for (const o of [...LAB_MODULE_OPTIONS, ...NOT_IN_LAB]) expect([o, by(o).actual, by(o).status, by(o).moduleCheck]).toEqual([o, "m", "pass", "unverified"]);
    // Finding: Debian has no kernel IP autoconfiguration, so the legacy pxe path (ip=dhcp) cannot work with it.
    expect(report.results.filter((r) => r.status === "warn").map((r) => [r.option, r.actual])).toEqual([
      ["IP_PNP", "n"],
      ["IP_PNP_DHCP", "n"],
    ]);
    // Options Debian's config does not even show (their dependencies are off) count as not set.
    expect([by("CMDLINE_OVERRIDE").status, by("INITRAMFS_FORCE").status]).toEqual(["pass", "pass"]);
  });

  test("with the lab's module set: the lab NICs pass, every real-server NIC, storage and platform module is missing", async () => {
    const { code, report, by, err } = await check("--modules", LAB_MODULES);
    expect(code).toBe(EXIT_CODES.kconfig_failed.exit);
    for (const o of LAB_MODULE_OPTIONS) expect([o, by(o).status, by(o).moduleCheck]).toEqual([o, "pass", "present"]);
    expect(report.results.filter((r) => r.status === "fail").map((r) => r.option)).toEqual(NOT_IN_LAB);
    expect(by("MLX5_CORE").missingModules).toEqual(["mlx5_core"]);
    expect(by("BLK_DEV_NVME").missingModules).toEqual(["nvme", "nvme_core"]);
    expect(by("IPV6").status).toBe("pass");
    expect(err).toStartWith(`metal-hammer: kernel config check failed: ${NOT_IN_LAB.length} requirement(s) not met: E1000E, IGB`);
  });

  test("VIRTIO_NET=m passes only when virtio_net is in the module set", async () => {
    const without = LAB_MODULES.split(",")
      .filter((m) => m !== "virtio_net")
      .join(",");
    const r = await check("--modules", without);
    expect(r.by("VIRTIO_NET")).toMatchObject({ actual: "m", status: "fail", missingModules: ["virtio_net"] });
    expect(r.by("VIRTIO").status).toBe("pass");
  });

  test("with the module set the initramfs ships: every requirement met, no module missing, the same warnings as the whole tree", async () => {
    const shipped = shippedModules();
    const { code, report } = await check("--modules", shipped);
    expect(report.results.filter((r) => r.moduleCheck === "missing").map((r) => [r.option, r.missingModules])).toEqual([]);
    expect(code).toBe(0);
    expect(report.counts.fail).toBe(0);
    expect(report.results.filter((r) => r.status === "warn").map((r) => r.option)).toEqual(["IP_PNP", "IP_PNP_DHCP"]);
    for (const m of LAB_MODULES.split(",")) expect(shipped.split(",")).toContain(m);
  }, 60_000);

  test("with the kernel's whole module tree: every requirement met, and every module the fragment names exists", async () => {
    const tree = `/lib/modules/${VERSION}`;
    expect(existsSync(tree)).toBe(true);
    const { code, report } = await check("--modules", tree);
    expect(code).toBe(0);
    expect(report.counts.fail).toBe(0);
    expect(report.results.filter((r) => r.status === "warn").map((r) => r.option)).toEqual(["IP_PNP", "IP_PNP_DHCP"]);
    expect(report.results.filter((r) => r.moduleCheck === "missing")).toEqual([]);
    // The fragment's module names are real: each is a module file in Debian's tree
    // (or the option is built in there, which none of the listed ones is).
    const names = new Set(readdirSync(tree, { recursive: true, encoding: "utf8" }).flatMap((p) => moduleNameOfFile(p) ?? []));
    const missing = parseFragment(BUILTIN_FRAGMENT_TEXT, "embedded").entries.flatMap((e) => e.modules.filter((m) => !names.has(m)));
    expect(missing).toEqual([]);
  });
});
