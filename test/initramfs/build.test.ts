/**
 * The initramfs build as a whole (initramfs/build.ts): reproducible bytes, exactly
 * the expected contents, owner 0:0 and one mtime. A small dynamic binary stands in
 * for the agent so the test stays fast; the real agent's libraries are checked
 * separately from its ELF headers. The kernel is the one the lab boots (KVER, else
 * the newest installed), so a Debian ABI bump needs no edit here; a missing kernel,
 * busybox or lz4 skips with the reason, and fails under CI=true.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { decodeCpio } from "../../initramfs/lib/cpio.ts";
import { readElfDeps } from "../../initramfs/lib/elf.ts";
import { parseLdd, verifyClosure } from "../../initramfs/lib/ldd.ts";
import { imageKernelConfig, initShim } from "../../src/init/paths.ts";
import { parseModulesAlias } from "../../src/kernel/kmod/alias.ts";
import { parseModulesDep } from "../../src/kernel/kmod/dep.ts";
import { parsePciIds, pciNames, PCI_IDS_PATH } from "../../src/machine/inventory/pci-ids.ts";
import { prerequisites } from "../helpers/prerequisites.ts";
import { KVER } from "../../lab/base/kernel.ts";

const ROOT = `${import.meta.dir}/../..`;
// A build runs modinfo on ~90 modules and compresses ~25 MiB: seconds, more on a loaded machine.
setDefaultTimeout(60_000);
const ready = prerequisites("the initramfs build tests (make deps installs them)", [
  !existsSync(`/lib/modules/${KVER}/modules.dep`) && `kernel ${KVER} modules`,
  !existsSync(`/boot/config-${KVER}`) && `kernel ${KVER} config (/boot/config-${KVER})`,
  !existsSync("/bin/busybox") && "busybox-static",
  Bun.which("lz4") === null && "lz4",
  !existsSync("/usr/share/misc/pci.ids") && "pci.ids (Debian package)",
]);
const haveAgent = prerequisites("the agent library check (make build)", [!existsSync(`${ROOT}/dist/metal-hammer`) && "dist/metal-hammer"]);
const dir = mkdtempSync(`${tmpdir()}/mhl-initramfs-`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function build(out: string, extra: string[] = [], compress = "lz4"): { code: number; stdout: string; stderr: string } {
  // The NIC modules only (the repo's list also carries the disk stages' storage modules): keeps the build small and fast.
  const r = Bun.spawnSync(
    [
      process.execPath,
      "initramfs/build.ts",
      "--agent",
      "/usr/bin/true",
      "--kver",
      KVER,
      "--list",
      "test/fixtures/modules/nic.list",
      "--compress",
      compress,
      "--out",
      out,
      ...extra,
    ],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
  );
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe.skipIf(!ready)("initramfs build", () => {
  test("the same inputs give the same bytes, and every entry is 0:0 with the fixed mtime", () => {
    const a = build(`${dir}/a.cpio.lz4`);
    const b = build(`${dir}/b.cpio.lz4`);
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(Bun.hash(readFileSync(`${dir}/a.cpio.lz4`))).toBe(Bun.hash(readFileSync(`${dir}/b.cpio.lz4`)));
    const cpio = Bun.spawnSync(["lz4", "-dc", `${dir}/a.cpio.lz4`], { stdout: "pipe" }).stdout;
    const entries = decodeCpio(new Uint8Array(cpio));
    for (const e of entries) {
      expect(e.fields.uid).toBe(0);
      expect(e.fields.gid).toBe(0);
      expect(e.fields.mtime).toBe(0);
    }
    const names = entries.map((e) => e.name);
    expect(names).toEqual([...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
  });

  test("the image holds the shim, the agent, its libraries, busybox, the CA bundle, the kernel's config, the module set and its tables, nothing else", () => {
    const cpio = Bun.spawnSync(["lz4", "-dc", `${dir}/a.cpio.lz4`], { stdout: "pipe" }).stdout;
    const entries = decodeCpio(new Uint8Array(cpio));
    const files = entries.filter((e) => (e.fields.mode & 0o170000) === 0o100000).map((e) => e.name);
    const libs = parseLdd(Bun.spawnSync(["ldd", "/usr/bin/true"]).stdout.toString()).map((l) => l.path.slice(1));
    const mods = `lib/modules/${KVER}`;
    const modFiles = files.filter((f) => f.startsWith(`${mods}/kernel/`));
    expect(files.filter((f) => !f.startsWith(`${mods}/kernel/`)).sort()).toEqual(
      [
        "init",
        "bin/metal-hammer",
        "bin/busybox",
        "etc/ssl/certs/ca-certificates.crt",
        `boot/config-${KVER}`,
        PCI_IDS_PATH.slice(1),
        ...libs,
        ...["modules.dep", "modules.alias", "modules.softdep", "modules.firmware", "modules.load"].map((f) => `${mods}/${f}`),
      ].sort(),
    );
    // The image's modules.dep lists exactly the module files it carries, each dependency among them.
    const text = (name: string): string => new TextDecoder().decode(entries.find((e) => e.name === `${mods}/${name}`)?.data);
    const dep = parseModulesDep(text("modules.dep"));
    expect([...dep.values()].map((m) => `${mods}/${m.path}`).sort()).toEqual([...modFiles].sort());
    for (const m of dep.values()) for (const d of m.deps) expect(modFiles).toContain(`${mods}/${d}`);
    // Real-server NICs and storage, the lab's, the disk modules; each module's aliases, nobody else's.
    for (const m of [
      "ice",
      "i40e",
      "ixgbe",
      "igb",
      "e1000e",
      "mlx5_core",
      "mlx4_en",
      "bnxt_en",
      "tg3",
      "be2net",
      "virtio_net",
      "vmxnet3",
      "e1000",
      "nvme",
      "ahci",
      "megaraid_sas",
      "mpt3sas",
      "hpsa",
      "smartpqi",
      "virtio_blk",
      "virtio_scsi",
      "sd_mod",
      "raid0",
      "raid1",
      "dm_mod",
      "ext4",
      "vfat",
    ]) {
      expect([m, dep.has(m)]).toEqual([m, true]);
    }
    const aliases = parseModulesAlias(text("modules.alias"));
    expect(new Set(aliases.map((a) => a.module)).size).toBeGreaterThan(20);
    for (const a of aliases) expect([a.module, dep.has(a.module)]).toEqual([a.module, true]);
    expect(aliases.some((a) => a.module === "ice" && a.pattern.startsWith("pci:v00008086d00001591"))).toBe(true);
    expect(text("modules.load").trim().split("\n")).toEqual([
      "sd_mod",
      "md_mod",
      "raid0",
      "raid1",
      "dm_mod",
      "dm_raid",
      "ext4",
      "vfat",
      "nls_cp437",
      "nls_ascii",
      "nls_utf8",
      "nls_iso8859_1",
      "efivarfs",
      "ipmi_devintf",
    ]);
    // ext4's softdep (crypto-crc32c) resolved to modules the image carries.
    expect(text("modules.softdep")).toContain("softdep ext4 pre: crc32c_intel crc32c_generic\n");
    for (const m of ["crc32c_intel", "crc32c_generic"]) expect(dep.has(m)).toBe(true);
    // Without --firmware-dir the firmware the drivers name is listed, not carried.
    expect(text("modules.firmware")).toContain("ice: intel/ice/ddp/ice.pkg");
    // The config of the kernel the modules are for, byte for byte, where PID 1's boot-time check looks (src/init/paths.ts imageKernelConfig).
    const config = entries.find((e) => e.name === imageKernelConfig(KVER).slice(1));
    expect(Buffer.from(config?.data ?? new Uint8Array()).equals(readFileSync(`/boot/config-${KVER}`))).toBe(true);
    expect(config?.fields.mode).toBe(0o100644);
    // PCI names for the devices display and network drivers bind: NVIDIA's GPUs (nouveau binds them by class: every
    // NVIDIA device), Intel's NICs by device id; not a SATA controller (ahci), not the whole Intel list.
    const ids = parsePciIds(new TextDecoder().decode(entries.find((e) => e.name === PCI_IDS_PATH.slice(1))?.data));
    expect(pciNames(ids, "0x10de", "0x20b5")).toEqual({ vendor: "NVIDIA Corporation", device: "GA100 [A100 PCIe 80GB]" });
    expect(pciNames(ids, "0x8086", "0x158b")).toEqual({ vendor: "Intel Corporation", device: "Ethernet Controller XXV710 for 25GbE SFP28" });
    expect(pciNames(ids, "0x8086", "0x2822")).toEqual({ vendor: "Intel Corporation" });
    expect(ids.get("8086")?.devices.size ?? 0).toBeLessThan(parsePciIds(readFileSync("/usr/share/misc/pci.ids", "utf8")).get("8086")?.devices.size ?? 0);
    const init = entries.find((e) => e.name === "init");
    expect(new TextDecoder().decode(init?.data)).toBe(initShim());
    expect(init?.fields.mode).toBe(0o100755);
    const sh = entries.find((e) => e.name === "bin/sh");
    expect(new TextDecoder().decode(sh?.data)).toBe("/bin/busybox");
    expect(entries.find((e) => e.name === "dev/console")?.fields).toMatchObject({ mode: 0o020600, rdevmajor: 5, rdevminor: 1 });
  });

  test("the manifest lists every entry with its group, and the size report names each group and the firmware it lacks", () => {
    const a = build(`${dir}/c.cpio.lz4`);
    expect(a.stdout).toMatch(/^ {2}agent +\d+\.\d MiB$/m);
    expect(a.stdout).toMatch(/^ {2}modules +\d+ \(\d+ built in/m);
    expect(a.stdout).toMatch(/^ {2}firmware +none; missing: .*intel\/ice\/ddp\/ice\.pkg/m);
    const manifest = readFileSync(`${dir}/c.cpio.lz4.manifest`, "utf8");
    expect(manifest).toContain("f 0755 bin/metal-hammer");
    expect(manifest).toMatch(/^# sha256 [0-9a-f]{64}$/m);
    expect(manifest).toMatch(/^# modules: .*\bvirtio_net\b.*$/m);
  });

  test("firmware the drivers name is taken from --firmware-dir, a symlink stored as the file it names", () => {
    const fw = mkdtempSync(`${tmpdir()}/mhl-fw-`);
    try {
      mkdirSync(`${fw}/intel/ice/ddp`, { recursive: true });
      writeFileSync(`${fw}/intel/ice/ddp/ice-1.0.pkg`, "DDP");
      symlinkSync("ice-1.0.pkg", `${fw}/intel/ice/ddp/ice.pkg`);
      const r = build(`${dir}/fw.cpio.lz4`, ["--firmware-dir", fw]);
      expect(r.code).toBe(0);
      const entries = decodeCpio(new Uint8Array(Bun.spawnSync(["lz4", "-dc", `${dir}/fw.cpio.lz4`], { stdout: "pipe" }).stdout));
      const pkg = entries.find((e) => e.name === "lib/firmware/intel/ice/ddp/ice.pkg");
      expect(new TextDecoder().decode(pkg?.data)).toBe("DDP");
      expect(r.stdout).toMatch(/^ {2}firmware +intel\/ice\/ddp\/ice\.pkg; missing: tigon/m);
    } finally {
      rmSync(fw, { recursive: true, force: true });
    }
  });

  test("--tools adds each host binary at its path with the libraries it loads", () => {
    const list = `${dir}/tools.list`;
    writeFileSync(list, "# disk tools\n/usr/bin/true\n/usr/bin/env\n");
    const r = build(`${dir}/tools.cpio.lz4`, ["--tools", list]);
    expect(r.stderr).toBe("");
    const entries = decodeCpio(new Uint8Array(Bun.spawnSync(["lz4", "-dc", `${dir}/tools.cpio.lz4`], { stdout: "pipe" }).stdout));
    const names = entries.map((e) => e.name);
    expect(names).toContain("usr/bin/true");
    expect(names).toContain("usr/bin/env");
    for (const l of parseLdd(Bun.spawnSync(["ldd", "/usr/bin/true"]).stdout.toString())) expect(names).toContain(l.path.slice(1));
    writeFileSync(list, "sgdisk\n");
    const bad = build(`${dir}/bad.cpio.lz4`, ["--tools", list]);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, `initramfs: ${list}:1: "sgdisk": expected an absolute host path like /usr/sbin/sgdisk`]);
  });

  test("--os-installer carries the installer with its facts (name, version, sha256, kind) beside it and in the manifest; a dynamic binary is refused", () => {
    const script = `${dir}/test-installer`;
    writeFileSync(script, "#!/bin/sh\necho installing\n", { mode: 0o755 });
    const sha = new Bun.CryptoHasher("sha256").update(readFileSync(script)).digest("hex");
    const r = build(`${dir}/carried.cpio.lz4`, ["--os-installer", script, "--os-installer-version", "v0.3.1", "--os-installer-name", "test-installer"]);
    expect(r.stderr).toBe("");
    const entries = decodeCpio(new Uint8Array(Bun.spawnSync(["lz4", "-dc", `${dir}/carried.cpio.lz4`], { stdout: "pipe" }).stdout));
    const bin = entries.find((e) => e.name === "usr/lib/metal-hammer/os-installer");
    expect(new TextDecoder().decode(bin?.data)).toBe("#!/bin/sh\necho installing\n");
    expect(bin?.fields.mode).toBe(0o100755);
    const info = JSON.parse(new TextDecoder().decode(entries.find((e) => e.name === "usr/lib/metal-hammer/os-installer.json")?.data));
    expect(info).toEqual({ name: "test-installer", version: "v0.3.1", sha256: sha, bytes: 26, kind: "script" });
    expect(readFileSync(`${dir}/carried.cpio.lz4.manifest`, "utf8")).toContain(`# os-installer: test-installer v0.3.1 (sha256 ${sha.slice(0, 12)}) script, sha256 ${sha}\n`);
    expect(r.stdout).toContain(`  installer  test-installer v0.3.1 (sha256 ${sha.slice(0, 12)})`);
    // Without the option: none, said so.
    expect(readFileSync(`${dir}/c.cpio.lz4.manifest`, "utf8")).toContain("# os-installer: none\n");
    const dynamic = build(`${dir}/dyn.cpio.lz4`, ["--os-installer", "/usr/bin/true", "--os-installer-version", "v0.3.1"]);
    expect(dynamic.code).toBe(2);
    expect(dynamic.stderr).toContain("initramfs: OS_INSTALLER=/usr/bin/true is dynamically linked");
    const noVersion = build(`${dir}/nover.cpio.lz4`, ["--os-installer", script]);
    expect([noVersion.code, noVersion.stderr.trim()]).toEqual([2, `initramfs: --os-installer ${script} needs --os-installer-version (make: OS_INSTALLER_VERSION=vX.Y.Z)`]);
  });

  // gzip is left out: -n (no name, no time) is its whole reproducibility, checked in compress.test.ts; each build here costs seconds.
  // One test per compressor: each is two whole builds of the image.
  test.each(["xz (the default)", "zstd (multi-threaded)"])(
    "%s output is reproducible too",
    (name) => {
      const c = name.split(" ")[0] as string;
      expect(build(`${dir}/r1.${c}`, ["--level", "3"], c).code).toBe(0);
      expect(build(`${dir}/r2.${c}`, ["--level", "3"], c).code).toBe(0);
      expect(Bun.hash(readFileSync(`${dir}/r1.${c}`))).toBe(Bun.hash(readFileSync(`${dir}/r2.${c}`)));
      // xz of the ~160 MB cpio twice: 41 s measured on 2 busy cores (it was one test of 60 s with zstd, and timed out).
    },
    120_000,
  );

  test("bad inputs stop the build with a message naming them", () => {
    expect(build(`${dir}/z`, ["--level", "30"], "zstd").stderr).toContain('compression level "30" for zstd: expected 1..22');
    expect(build(`${dir}/x`, ["--compress", "bzip2"]).stderr).toContain('compression "bzip2": expected one of lz4, zstd, xz, gzip, none');
    const noList = build(`${dir}/y`, ["--list", "/nonexistent.list"]);
    expect(noList.code).toBe(2);
    expect(noList.stderr).toContain("cannot read the module list /nonexistent.list");
    const noConfig = build(`${dir}/k`, ["--kernel-config", "/nonexistent/config"]);
    expect([noConfig.code, noConfig.stderr.trim()]).toEqual([
      2,
      "initramfs: the kernel config /nonexistent/config does not exist: the agent checks the running kernel against it at boot; pass --kernel-config FILE",
    ]);
  });
});

describe.skipIf(!haveAgent)("the agent binary's libraries", () => {
  test("are exactly the five glibc files the field notes name, verified against the ELF headers", () => {
    const bin = `${ROOT}/dist/metal-hammer`;
    const libs = parseLdd(Bun.spawnSync(["ldd", bin]).stdout.toString());
    verifyClosure(readElfDeps(new Uint8Array(readFileSync(bin))), libs, (p) => readElfDeps(new Uint8Array(readFileSync(p))).needed);
    expect(libs.map((l) => l.path.slice(l.path.lastIndexOf("/") + 1)).sort()).toEqual(["ld-linux-x86-64.so.2", "libc.so.6", "libdl.so.2", "libm.so.6", "libpthread.so.0"]);
  });
});
