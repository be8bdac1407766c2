/**
 * The Makefile on a fresh machine: the kernel version (KVER, mk/initramfs.mk) is read when
 * make starts, but linux-image-amd64 arrives only with `deps`. These runs give make a fake
 * dpkg-query and apt-get on PATH and a fake boot dir (BOOT_DIR): the kernel package is
 * "installed" only by the fake apt-get, as on a machine where `make lab` is the first command.
 * `make -n` prints the recipes without running them, except those that remake an included
 * makefile, which is what deps-apt is here: nothing on the host changes.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(import.meta.dir, "../../..");
const FAKE_KVER = "9.9.9-fake-amd64";
let dir = "";

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mh-kver-"));
  mkdirSync(join(dir, "bin"));
  mkdirSync(join(dir, "boot"));
  // dpkg-query -W -f='${Status}\n' PKG: every package installed but the kernel until apt-get ran;
  // dpkg-query -W -f='${Depends}' linux-image-amd64: the versioned kernel package once installed.
  writeFileSync(
    join(dir, "bin/dpkg-query"),
    `#!/bin/sh
for pkg; do :; done
case "$*" in
*Depends*) [ -e "${dir}/installed" ] && echo 'linux-image-${FAKE_KVER} (= 9.9.9-1)'; exit 0;;
esac
if [ "$pkg" = linux-image-amd64 ] && [ ! -e "${dir}/installed" ]; then exit 1; fi
echo 'install ok installed'
`,
  );
  writeFileSync(
    join(dir, "bin/apt-get"),
    `#!/bin/sh
echo "$*" >> "${dir}/apt.log"
case "$1" in install) touch "${dir}/installed" "${dir}/boot/vmlinuz-${FAKE_KVER}";; esac
`,
  );
  chmodSync(join(dir, "bin/dpkg-query"), 0o755);
  chmodSync(join(dir, "bin/apt-get"), 0o755);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function makeDryRun(goal: string): { code: number; out: string; aptCalls: string[] } {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), PATH: `${dir}/bin:${process.env.PATH}` };
  // A make test run's own make variables must not leak into this one.
  for (const k of ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKE_RESTARTS", "KVER", "INITRAMFS", "BOOT_DIR"]) delete env[k];
  const r = Bun.spawnSync(["make", "-n", "--no-print-directory", goal, `BOOT_DIR=${dir}/boot`, `KVER_DEPS_STAMP=${dir}/kver-deps.mk`], {
    cwd: REPO,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const log = join(dir, "apt.log");
  return {
    code: r.exitCode,
    out: r.stdout.toString() + r.stderr.toString(),
    aptCalls: existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [],
  };
}

test("a first `make lab-kernel` installs the kernel package, then builds from the kernel it installed", () => {
  const r = makeDryRun("lab-kernel");
  expect(r.aptCalls).toContain("install -y -q --no-install-recommends linux-image-amd64");
  expect(r.out).not.toContain("is missing");
  expect(r.out).toContain(`lab/base/vmlinux.ts ${dir}/boot/vmlinuz-${FAKE_KVER} build/lab/vmlinux-${FAKE_KVER}`);
  expect(r.code).toBe(0);
}, 30_000);

test("with the kernel already installed, make installs nothing", () => {
  writeFileSync(join(dir, "installed"), "");
  writeFileSync(join(dir, "boot", `vmlinuz-${FAKE_KVER}`), "");
  const r = makeDryRun("lab-kernel");
  expect(r.aptCalls).toEqual([]);
  expect(r.out).toContain(`build/lab/vmlinux-${FAKE_KVER}`);
  expect(r.code).toBe(0);
}, 30_000);

test("a goal that needs no kernel (typecheck) installs no Debian package", () => {
  const r = makeDryRun("typecheck");
  expect(r.aptCalls).toEqual([]);
  expect(r.code).toBe(0);
}, 30_000);
