#!/usr/bin/env bun
/**
 * Builds the tiny test OS image: busybox (Debian's busybox-static) as the userland,
 * an `/install.sh` (test-installer.ts, the `efibootmgr` shape) that checks the installer
 * contract files, writes /etc/metal/boot-info.yaml and a marker (`--installer
 * /install-go` puts it there instead, as metal-images of 2022-10 to 2026-08 carried
 * install-go; `--installer none` leaves the image without one, as metal-images build
 * theirs now), plus entries that check extraction fidelity
 * (modes incl. setuid/sticky, numeric owners, a hard link, symbolic links, user and
 * security xattrs). Packed as `img.tar.lz4` with GNU tar (--xattrs, numeric owners)
 * and lz4, with `.md5` (as metal-images ship) and `.sha256` sidecars.
 *
 *   bun lab/images/build.ts --out DIR [--pad-mib N] [--kernel /boot/vmlinuz-...]
 *
 * `--pad-mib` adds N MiB of incompressible data (for the fault tests and the bench).
 * `--kernel` copies a kernel to /boot/vmlinuz (the QEMU e2e kexecs it) and adds /boot/initrd.img:
 * busybox and an /init that prints `testos: up` with its command line and powers off, so a
 * run ends with the installed OS's own line and a clean power-off.
 * `--efi` adds GRUB's EFI build and the host's efibootmgr with its libraries; the installer
 * then writes GRUB to the ESP (/boot/efi) when the layout has one: on a UEFI machine as
 * EFI/testos/grubx64.efi with a boot entry "testos" (efibootmgr), else as the fallback
 * EFI/BOOT/BOOTX64.EFI (needs grub-efi-amd64-bin and efibootmgr on the host).
 * The installer's failure cases by hostname: test-installer.ts.
 */
import { parseArgs } from "node:util";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { testInstallerScript } from "./test-installer.ts";

/** Where the test image carries its installer, or `none`. */
export type TestImageInstaller = "/install.sh" | "/install-go" | "none";

/**
 * GRUB for the test OS (--efi): one EFI binary (grub-mkstandalone, Debian's
 * grub-efi-amd64-bin) whose built-in config finds the installed root by its marker and
 * reads the installer's /boot/grub/grub.cfg there.
 */
function buildGrubEfi(out: string): void {
  const cfg = join(tmpdir(), `mh-testos-grub-${process.pid}.cfg`);
  writeFileSync(cfg, "search --no-floppy --file /installed-marker --set=root\nconfigfile ($root)/boot/grub/grub.cfg\n");
  try {
    run([
      "grub-mkstandalone",
      "-O",
      "x86_64-efi",
      "--locales=",
      "--fonts=",
      "--themes=",
      "--install-modules=part_gpt ext2 search search_fs_file configfile linux normal echo",
      "--modules=part_gpt ext2 search_fs_file configfile linux normal",
      "-o",
      out,
      `boot/grub/grub.cfg=${cfg}`,
    ]);
  } finally {
    rmSync(cfg, { force: true });
  }
}

const EFIBOOTMGR = "/usr/bin/efibootmgr";

/** The installed OS's first process: says it is up (with the marker from its command line) and powers off. */
const TESTOS_INIT = `#!/bin/busybox sh
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox mount -t proc proc /proc
exec > /dev/console 2>&1
echo "testos: up: $(/bin/busybox cat /proc/cmdline)"
/bin/busybox poweroff -f
`;

/** The test OS's initrd (newc cpio, root-owned): static busybox and TESTOS_INIT. */
function buildTestOsInitrd(busybox: string, out: string): void {
  const root = mkdtempSync(join(tmpdir(), "mh-testos-initrd-"));
  try {
    for (const d of ["bin", "dev", "proc"]) mkdirSync(join(root, d));
    copyFileSync(busybox, join(root, "bin/busybox"));
    chmodSync(join(root, "bin/busybox"), 0o755);
    writeFileSync(join(root, "init"), TESTOS_INIT, { mode: 0o755 });
    chmodSync(join(root, "init"), 0o755);
    const r = spawnSync("sh", ["-c", `cd "${root}" && printf 'bin\\nbin/busybox\\ndev\\nproc\\ninit\\n' | cpio -o -H newc -R 0:0 --quiet > "${out}"`], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`test OS initrd: cpio failed: ${r.stderr}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Copies a dynamically linked host binary into the tree at the same path, with every
 * library ldd names (at its path) and the loader: the image's userland is static busybox.
 */
function copyWithLibraries(binary: string, tree: string): void {
  const files = [binary, ...[...run(["ldd", binary]).matchAll(/(\/[^\s]+) \(0x/g)].map((m) => m[1]!)];
  for (const f of files) {
    const to = join(tree, f);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(realpathSync(f), to);
    chmodSync(to, 0o755);
  }
}

export interface TestImage {
  readonly dir: string;
  readonly image: string;
  readonly md5: string;
  readonly sha256: string;
  readonly bytes: number;
}

function run(argv: string[], opts: { cwd?: string } = {}): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: opts.cwd, encoding: "utf8", shell: false });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Builds the tree in a temporary directory and packs it into `out`. */
export function buildTestImage(out: string, opts: { padMib?: number; kernel?: string; busybox?: string; efi?: boolean; installer?: TestImageInstaller } = {}): TestImage {
  const tree = mkdtempSync(join(tmpdir(), "mh-testos-"));
  try {
    for (const d of ["bin", "etc/metal", "dev", "proc", "sys", "boot", "tmp", "var/empty", "data"]) mkdirSync(join(tree, d), { recursive: true });
    copyFileSync(opts.busybox ?? "/bin/busybox", join(tree, "bin/busybox"));
    chmodSync(join(tree, "bin/busybox"), 0o755);
    for (const applet of ["sh", "cat", "grep", "sed", "echo", "ls", "id", "test", "[", "sleep", "mkdir", "cp", "ln", "dd", "setsid", "tr", "basename"])
      symlinkSync("busybox", join(tree, "bin", applet));
    const installer = opts.installer ?? "/install.sh";
    if (installer !== "none") {
      writeFileSync(join(tree, installer), testInstallerScript("efibootmgr"), { mode: 0o755 });
      chmodSync(join(tree, installer), 0o755);
    }
    writeFileSync(join(tree, "etc/os-release"), 'ID=testos\nNAME="metal-hammer test OS"\n');
    if (opts.kernel) {
      copyFileSync(opts.kernel, join(tree, "boot/vmlinuz"));
      buildTestOsInitrd(opts.busybox ?? "/bin/busybox", join(tree, "boot/initrd.img"));
    }
    if (opts.efi) {
      mkdirSync(join(tree, "usr/lib/testos"), { recursive: true });
      buildGrubEfi(join(tree, "usr/lib/testos/BOOTX64.EFI"));
      copyWithLibraries(EFIBOOTMGR, tree);
    }
    // Fidelity entries.
    writeFileSync(join(tree, "data/setuid"), "suid\n");
    chmodSync(join(tree, "data/setuid"), 0o4755);
    writeFileSync(join(tree, "data/secret"), "only owner\n");
    chmodSync(join(tree, "data/secret"), 0o600);
    chownSync(join(tree, "data/secret"), 1234, 5678);
    chmodSync(join(tree, "tmp"), 0o1777);
    linkSync(join(tree, "data/setuid"), join(tree, "data/hardlink"));
    symlinkSync("/etc/os-release", join(tree, "data/abs-link"));
    symlinkSync("../etc/os-release", join(tree, "data/rel-link"));
    writeFileSync(join(tree, "data/xattr"), "with xattrs\n");
    run(["setfattr", "-n", "user.metal", "-v", "hammer", join(tree, "data/xattr")]);
    // security.capability for cap_net_raw+ep, as setcap writes it (VFS_CAP_REVISION_2).
    run(["setfattr", "-n", "security.capability", "-v", "0sAQAAAgAgAAAAAAAAAAAAAAAAAAA=", join(tree, "data/setuid")]);
    if (opts.padMib) writeFileSync(join(tree, "data/pad.bin"), randomBytes(opts.padMib << 20));
    mkdirSync(out, { recursive: true });
    const image = join(out, "img.tar.lz4");
    const tar = spawnSync("sh", ["-c", `tar -C "${tree}" --xattrs --xattrs-include='*' --numeric-owner -cf - . | lz4 -q -z -c > "${image}"`], { encoding: "utf8" });
    if (tar.status !== 0) throw new Error(`packing failed: ${tar.stderr}`);
    const md5 = run(["md5sum", image]).split(" ")[0]!;
    const sha256 = run(["sha256sum", image]).split(" ")[0]!;
    // metal-images' .md5: the digest and the file name, as md5sum writes it.
    writeFileSync(`${image}.md5`, `${md5}  img.tar.lz4\n`);
    writeFileSync(`${image}.sha256`, `${sha256}  img.tar.lz4\n`);
    const bytes = Bun.file(image).size;
    return { dir: out, image, md5, sha256, bytes };
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { out: { type: "string" }, "pad-mib": { type: "string" }, kernel: { type: "string" }, efi: { type: "boolean" }, installer: { type: "string" } },
  });
  const installer = (values.installer ?? "/install.sh") as TestImageInstaller;
  if (!values.out || !["/install.sh", "/install-go", "none"].includes(installer)) {
    console.error("usage: bun lab/images/build.ts --out DIR [--pad-mib N] [--kernel PATH] [--efi] [--installer /install.sh|/install-go|none]");
    process.exit(2);
  }
  const img = buildTestImage(values.out, {
    padMib: values["pad-mib"] ? Number(values["pad-mib"]) : 0,
    ...(values.kernel ? { kernel: values.kernel } : {}),
    efi: values.efi === true,
    installer,
  });
  console.log(JSON.stringify(img));
}
