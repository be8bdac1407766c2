/**
 * The initramfs build as a whole (initramfs/build.ts): reproducible bytes, exactly
 * the expected contents, owner 0:0 and one mtime. A small dynamic binary stands in
 * for the agent so the test stays fast; the real agent's libraries are checked
 * separately from its ELF headers.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { decodeCpio } from "../../src/initramfs/cpio.ts";
import { readElfDeps } from "../../src/initramfs/elf.ts";
import { parseLdd, verifyClosure } from "../../src/initramfs/ldd.ts";
import { initShim } from "../../src/init/paths.ts";

const KVER = "6.1.0-57-amd64";
const ROOT = `${import.meta.dir}/../..`;
const ready = existsSync(`/lib/modules/${KVER}/modules.dep`) && existsSync("/bin/busybox") && Bun.which("lz4") !== null;
const dir = mkdtempSync(`${tmpdir()}/mhl-initramfs-`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function build(out: string, extra: string[] = [], compress = "lz4"): { code: number; stdout: string; stderr: string } {
  // The NIC modules only (the repo's list also carries the disk stages' storage modules): keeps the build small and fast.
  const r = Bun.spawnSync([process.execPath, "initramfs/build.ts", "--agent", "/usr/bin/true", "--kver", KVER, "--list", "test/fixtures/modules/nic.list", "--compress", compress, "--out", out, ...extra], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
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

  test("the image holds the shim, the agent, its libraries, busybox, the CA bundle and the listed modules, nothing else", () => {
    const cpio = Bun.spawnSync(["lz4", "-dc", `${dir}/a.cpio.lz4`], { stdout: "pipe" }).stdout;
    const entries = decodeCpio(new Uint8Array(cpio));
    const files = entries.filter((e) => (e.fields.mode & 0o170000) === 0o100000).map((e) => e.name);
    const libs = parseLdd(Bun.spawnSync(["ldd", "/usr/bin/true"]).stdout.toString()).map((l) => l.path.slice(1));
    expect(files.sort()).toEqual(
      [
        "init",
        "bin/metal-hammer",
        "bin/busybox",
        "etc/ssl/certs/ca-certificates.crt",
        ...libs,
        ...["virtio/virtio_ring", "virtio/virtio", "virtio/virtio_pci_modern_dev", "virtio/virtio_pci_legacy_dev", "virtio/virtio_pci", "net/virtio_net", "net/net_failover", "net/ethernet/intel/e1000/e1000"].map(
          (m) => `lib/modules/${KVER}/kernel/drivers/${m}.ko`,
        ),
        `lib/modules/${KVER}/kernel/net/core/failover.ko`,
        `lib/modules/${KVER}/modules.dep`,
        `lib/modules/${KVER}/modules.load`,
      ].sort(),
    );
    const init = entries.find((e) => e.name === "init");
    expect(new TextDecoder().decode(init?.data)).toBe(initShim());
    expect(init?.fields.mode).toBe(0o100755);
    const sh = entries.find((e) => e.name === "bin/sh");
    expect(new TextDecoder().decode(sh?.data)).toBe("/bin/busybox");
    expect(entries.find((e) => e.name === "dev/console")?.fields).toMatchObject({ mode: 0o020600, rdevmajor: 5, rdevminor: 1 });
  });

  test("the manifest lists every entry with its group, and the size report names each group", () => {
    const a = build(`${dir}/c.cpio.lz4`);
    expect(a.stdout).toMatch(/^ {2}agent +\d+\.\d MiB$/m);
    expect(a.stdout).toMatch(/modules +virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net e1000/);
    const manifest = readFileSync(`${dir}/c.cpio.lz4.manifest`, "utf8");
    expect(manifest).toContain("f 0755 bin/metal-hammer");
    expect(manifest).toMatch(/^# sha256 [0-9a-f]{64}$/m);
  });

  test("zstd (multi-threaded) and gzip output are reproducible too", () => {
    for (const c of ["zstd", "gzip"]) {
      expect(build(`${dir}/r1.${c}`, ["--level", "3"], c).code).toBe(0);
      expect(build(`${dir}/r2.${c}`, ["--level", "3"], c).code).toBe(0);
      expect(Bun.hash(readFileSync(`${dir}/r1.${c}`))).toBe(Bun.hash(readFileSync(`${dir}/r2.${c}`)));
    }
  });

  test("bad inputs stop the build with a message naming them", () => {
    expect(build(`${dir}/z`, ["--level", "30"], "zstd").stderr).toContain('compression level "30" for zstd: expected 1..19');
    expect(build(`${dir}/x`, ["--compress", "bzip2"]).stderr).toContain('compression "bzip2": expected one of lz4, zstd, gzip, none');
    const noList = build(`${dir}/y`, ["--list", "/nonexistent.list"]);
    expect(noList.code).toBe(2);
    expect(noList.stderr).toContain("cannot read the module list /nonexistent.list");
  });
});

describe.skipIf(!existsSync(`${ROOT}/dist/metal-hammer`))("the agent binary's libraries", () => {
  test("are exactly the five glibc files the field notes name, verified against the ELF headers", () => {
    const bin = `${ROOT}/dist/metal-hammer`;
    const libs = parseLdd(Bun.spawnSync(["ldd", bin]).stdout.toString());
    verifyClosure(readElfDeps(new Uint8Array(readFileSync(bin))), libs, (p) => readElfDeps(new Uint8Array(readFileSync(p))).needed);
    expect(libs.map((l) => l.path.slice(l.path.lastIndexOf("/") + 1)).sort()).toEqual(["ld-linux-x86-64.so.2", "libc.so.6", "libdl.so.2", "libm.so.6", "libpthread.so.0"]);
  });
});
