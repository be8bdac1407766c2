/**
 * kexec_file_load for real, in QEMU (TCG): the first kernel (Debian's, the lab's KVER)
 * runs a compiled PID 1 (test/e2e/kexec/smoke.ts) that calls bootInstalled with the
 * real syscalls; the kexec'd kernel (the same bzImage) boots a busybox initrd whose
 * /init prints a marker taken from its cmdline and powers off. The marker on the serial
 * console proves kernel fd, initrd fd, cmdline (with its NUL) and reboot(KEXEC) are
 * right. With lockdown=integrity the kernel refuses the load: the smoke says "would
 * reboot instead" (the reboot is turned into a power-off to end the test).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KVER } from "../../lab/base/kernel.ts";
import { qemuMachineArgv } from "../../lab/base/qemu.ts";

const QEMU = qemuMachineArgv(1024);

const ROOT = join(import.meta.dir, "../..");
const BZIMAGE = `/boot/vmlinuz-${KVER}`;
const BUN = join(ROOT, "node_modules/.bin/bun");
const RUNTIME = join(ROOT, "node_modules/@oven/bun-linux-x64-baseline/bin/bun");
const missing = [...["qemu-system-x86_64", "cpio", "lz4"].filter((t) => Bun.which(t) === null), ...[BZIMAGE, "/bin/busybox", RUNTIME].filter((p) => !existsSync(p))];
const ready = missing.length === 0;
const why = `needs ${missing.join(", ")}`;
if (!ready && process.env.CI === "true") {
  test("kexec e2e prerequisites", () => {
    throw new Error(`kexec e2e cannot run under CI: ${why}`);
  });
}

const work = mkdtempSync(join(tmpdir(), "mh-kexec-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sh(argv: string[], cwd?: string): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}: ${(r.stderr ?? "").slice(-2000)}`);
}

/** A newc cpio of the files under `dir` (paths relative to it). */
function cpio(dir: string, out: string): void {
  sh(["sh", "-c", `find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 > "${out}"`], dir);
}

describe.skipIf(!ready)(`kexec into a second kernel in QEMU${ready ? "" : ` (skipped: ${why})`}`, () => {
  const marker = `KEXEC-OK-${Math.random().toString(16).slice(2, 10)}`;
  let initrd = "";

  beforeAll(() => {
    // Second stage: busybox + /init that prints the marker it finds on its cmdline.
    const second = join(work, "second");
    mkdirSync(join(second, "bin"), { recursive: true });
    for (const d of ["proc", "dev"]) mkdirSync(join(second, d));
    copyFileSync("/bin/busybox", join(second, "bin/busybox"));
    symlinkSync("busybox", join(second, "bin/sh"));
    writeFileSync(
      join(second, "init"),
      '#!/bin/busybox sh\n/bin/busybox mount -t proc proc /proc\nfor w in $(/bin/busybox cat /proc/cmdline); do case $w in KEXEC_MARKER=*) echo "second kernel: ${w#KEXEC_MARKER=}";; esac; done\n/bin/busybox poweroff -f\n',
    );
    chmodSync(join(second, "init"), 0o755);
    cpio(second, join(work, "second.cpio"));
    // First stage: the compiled smoke PID 1 in the project's initramfs, plus /kexec/*.
    const smoke = join(work, "smoke");
    sh([
      BUN,
      "build",
      "--compile",
      "--format=esm",
      `--compile-executable-path=${RUNTIME}`,
      "--target=bun-linux-x64-baseline",
      join(import.meta.dir, "kexec/smoke.ts"),
      "--outfile",
      smoke,
    ]);
    sh([BUN, join(ROOT, "initramfs/build.ts"), "--agent", smoke, "--kver", KVER, "--compress", "lz4", "--out", join(work, "first.cpio.lz4")], ROOT);
    const extra = join(work, "extra");
    mkdirSync(join(extra, "kexec"), { recursive: true });
    copyFileSync(BZIMAGE, join(extra, "kexec/vmlinuz"));
    copyFileSync(join(work, "second.cpio"), join(extra, "kexec/initrd"));
    writeFileSync(join(extra, "kexec/cmdline"), `console=ttyS0 panic=-1 loglevel=4 KEXEC_MARKER=${marker}\n`);
    cpio(extra, join(work, "extra.cpio"));
    // Concatenated archives: the kernel unpacks each in turn. The plain one goes first: the
    // lz4 legacy stream carries no length, so its decoder would eat what follows it.
    initrd = join(work, "initrd");
    writeFileSync(initrd, Buffer.concat([readFileSync(join(work, "extra.cpio")), readFileSync(join(work, "first.cpio.lz4"))]));
  }, 240_000);

  async function boot(append: string): Promise<{ out: string; code: number | null }> {
    const q = spawn(QEMU[0] as string, [...QEMU.slice(1), "-kernel", BZIMAGE, "-initrd", initrd, "-append", append, "-nic", "none"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    q.stdout!.on("data", (d) => (out += String(d)));
    q.stderr!.on("data", (d) => (out += String(d)));
    const killer = setTimeout(() => q.kill("SIGKILL"), 200_000);
    const code = await new Promise<number | null>((r) => q.on("close", r));
    clearTimeout(killer);
    return { out, code };
  }

  test("the kexec'd kernel boots its initrd with our cmdline and prints the marker", async () => {
    const { out, code } = await boot("console=ttyS0 panic=-1 loglevel=4");
    const tail = out.slice(-3000);
    expect(out, tail).toContain("KEXEC-SMOKE start");
    expect(out, tail).toContain('"event":"install.kexec"');
    expect(out, tail).not.toContain("would reboot instead");
    expect(out, tail).toContain(`second kernel: ${marker}`);
    expect(code).toBe(0);
  }, 240_000);

  test("under lockdown the kernel refuses the load: install.reboot names why, no second kernel", async () => {
    // lockdown=integrity: kexec_file_load must verify the image's signature against the
    // kernel's keyrings; without UEFI db keys (SeaBIOS) Debian's signature is not trusted,
    // and a locked-down kernel answers EPERM (seen on 6.1.0-57; kernel/kexec_file.c).
    const { out, code } = await boot("console=ttyS0 panic=-1 loglevel=4 lockdown=integrity");
    const tail = out.slice(-3000);
    expect(out, tail).toContain("KEXEC-SMOKE start");
    expect(out, tail).toContain('"event":"install.reboot"');
    const reason = /kexec_file_load: (EKEYREJECTED|EPERM|ENOKEY|errno \d+)/.exec(out);
    expect(reason, tail).not.toBeNull();
    console.log(`lockdown refusal seen: ${reason?.[0]}`);
    expect(out, tail).toContain("would reboot instead");
    expect(out, tail).not.toContain(`second kernel: ${marker}`);
    expect(code).toBe(0);
  }, 240_000);
});
