#!/usr/bin/env bun
/**
 * The lab's real OS image: Debian trixie from Debian's packages (mmdebstrap), shaped
 * like metal-images' debian/Dockerfile (metal-stack/metal-images@1917b767) with what
 * Debian carries, and a unit that prints one marker line on the console and powers off.
 * No installer in it, as metal-images build theirs since "Remove install-go" (#426): the
 * agent's initramfs carries os-installer (src/install/carried-installer.ts,
 * `make initramfs OS_INSTALLER=PATH`) and copies it in. Packed as metal-images pack
 * theirs (tar, then lz4 -9) as img.tar.lz4 with .md5 (md5sum's line, as metal-images
 * ship), .sha256 and .sha512 sidecars.
 *
 *   bun lab/images/debian.ts --out build/debian
 *
 * Cached: the inputs (package list, suite, the files added, this file) hash to a key
 * written beside the image (inputs.sha256); an image with the same key is not rebuilt.
 *
 * Left out of metal-images' list, because they come from other registries or other
 * projects' releases: docker/containerd.io (and crictl), go-lldpd, flatcar's ignition,
 * FRR's own apt repository (Debian's frr package is used), Intel's ice firmware, the
 * Ubuntu mainline kernel script; also left out to keep the image small for the lab:
 * cloud-init, apparmor-utils, cryptsetup, ipmitool, iptables, nvme-cli, locales, tzdata,
 * watchdog, haveged, vim and the network tools (curl, wget, jq, socat, tcpdump,
 * traceroute, ethtool, iputils-ping). os-installer runs `ignition -version` and, for
 * ignition user data, `ignition`: both are logged and tolerated by os-installer when
 * missing.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

export const SUITE = "trixie";

/** Debian packages of the image (metal-images' list, less what is above). */
export const PACKAGES = [
  "linux-image-amd64",
  "initramfs-tools",
  "systemd",
  "systemd-sysv",
  "dbus",
  "udev",
  "grub-efi-amd64-bin",
  "grub2-common",
  "efibootmgr",
  "mdadm",
  "lvm2",
  "e2fsprogs",
  "dosfstools",
  "openssh-server",
  "iproute2",
  "frr",
  "systemd-timesyncd",
  "sudo",
  "ca-certificates",
  "procps",
  "zstd",
];

/** The marker: one line on the console once systemd says how the boot went, then power off. */
export const MARKER_SCRIPT = `#!/bin/sh
# Lab marker (metal-hammer lab/images/debian.ts): one line on the console, then power off.
state=$(systemctl is-system-running --wait 2>/dev/null)
root=$(findmnt -n -o SOURCE /)
# GRUB passes BOOT_IMAGE= on the kernel command line; a kexec from boot-info.yaml does not.
case " $(cat /proc/cmdline) " in *" BOOT_IMAGE="*) boot=grub ;; *) boot=kexec ;; esac
echo "metal-lab-marker: hostname=$(hostname) root=$root state=$state boot=$boot" > /dev/console
systemctl list-units --state=failed --no-legend --plain > /dev/console 2>&1
systemctl poweroff --no-block
`;

export const MARKER_UNIT = `[Unit]
Description=metal-hammer lab marker (prints one line on the console, then powers off)

[Service]
Type=simple
ExecStart=/usr/local/sbin/metal-lab-marker

[Install]
WantedBy=multi-user.target
`;

/** Shell run by mmdebstrap's --customize-hook with the root as $1: the files above. */
function customize(): string[] {
  return [
    `mkdir -p "$1/etc/metal" "$1/usr/local/sbin"`,
    `printf '%s' '${MARKER_SCRIPT.replace(/'/g, "'\\''")}' > "$1/usr/local/sbin/metal-lab-marker" && chmod 0755 "$1/usr/local/sbin/metal-lab-marker"`,
    `printf '%s' '${MARKER_UNIT}' > "$1/etc/systemd/system/metal-lab-marker.service"`,
    `chroot "$1" systemctl enable metal-lab-marker.service systemd-networkd.service systemd-timesyncd.service`,
    `chroot "$1" systemctl set-default multi-user.target`,
    // As metal-images: no console getty (the serial console is the marker's), no machine id baked in.
    `chroot "$1" systemctl mask console-getty.service serial-getty@ttyS0.service`,
    // The first boot (os-installer empties /etc/machine-id) would start systemd-firstboot, which prompts on the console.
    `chroot "$1" systemctl mask systemd-firstboot.service`,
    // os-installer runs `systemctl preset-all` after user data: the marker stays enabled.
    `mkdir -p "$1/usr/lib/systemd/system-preset" && echo 'enable metal-lab-marker.service' > "$1/usr/lib/systemd/system-preset/10-metal-lab.preset"`,
    `: > "$1/etc/machine-id"`,
    `rm -rf "$1/var/cache/apt/archives/"*.deb "$1/var/lib/apt/lists/"* "$1/var/log/apt/"*`,
  ];
}

export interface DebianImage {
  readonly dir: string;
  readonly image: string;
  readonly key: string;
  readonly bytes: number;
  readonly md5: string;
  readonly sha256: string;
  readonly sha512: string;
  /** Seconds of the build (0: cached). */
  readonly buildSeconds: number;
  readonly cached: boolean;
}

function must(argv: string[], what: string): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${what}: ${argv.slice(0, 3).join(" ")} ... failed (${r.status}):\n${(r.stderr || r.stdout).split("\n").slice(-40).join("\n")}`);
  return r.stdout;
}

const digest = (algo: string, file: string) => must([`${algo}sum`, file], `${algo}sum`).split(" ")[0]!;

export function inputsKey(): string {
  const h = createHash("sha256");
  h.update(JSON.stringify({ SUITE, PACKAGES, MARKER_SCRIPT, MARKER_UNIT }));
  h.update(readFileSync(import.meta.path));
  return h.digest("hex");
}

export function buildDebianImage(out: string): DebianImage {
  const key = inputsKey();
  const image = join(out, "img.tar.lz4");
  const keyFile = join(out, "inputs.sha256");
  const result = (buildSeconds: number, cached: boolean): DebianImage => ({
    dir: out,
    image,
    key,
    bytes: statSync(image).size,
    md5: readFileSync(`${image}.md5`, "utf8").split(" ")[0]!,
    sha256: readFileSync(`${image}.sha256`, "utf8").split(" ")[0]!,
    sha512: readFileSync(`${image}.sha512`, "utf8").split(" ")[0]!,
    buildSeconds,
    cached,
  });
  if (existsSync(keyFile) && existsSync(image) && readFileSync(keyFile, "utf8").trim() === key) return result(0, true);
  const started = performance.now();
  mkdirSync(out, { recursive: true });
  const tar = join(out, "rootfs.tar");
  rmSync(keyFile, { force: true });
  must(
    [
      "mmdebstrap",
      "--variant=minbase",
      "--mode=root",
      "--format=tar",
      "--skip=output/dev",
      `--include=${PACKAGES.join(",")}`,
      '--aptopt=Apt::Install-Recommends "false"',
      ...customize().map((c) => `--customize-hook=${c}`),
      SUITE,
      tar,
    ],
    "mmdebstrap",
  );
  // metal-images: the tarball, then lz4 -9.
  must(["sh", "-c", `lz4 -q -9 -f "${tar}" "${image}.tmp" && mv "${image}.tmp" "${image}" && rm -f "${tar}"`], "lz4");
  writeFileSync(`${image}.md5`, `${digest("md5", image)}  img.tar.lz4\n`);
  writeFileSync(`${image}.sha256`, `${digest("sha256", image)}  img.tar.lz4\n`);
  writeFileSync(`${image}.sha512`, `${digest("sha512", image)}  img.tar.lz4\n`);
  writeFileSync(`${keyFile}.tmp`, `${key}\n`);
  renameSync(`${keyFile}.tmp`, keyFile);
  return result(Math.round((performance.now() - started) / 1000), false);
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  if (!values.out) {
    console.error("usage: bun lab/images/debian.ts --out DIR");
    process.exit(2);
  }
  console.log(JSON.stringify(buildDebianImage(values.out)));
}
