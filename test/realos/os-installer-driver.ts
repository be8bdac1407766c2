/**
 * Runs inside `unshare --mount --propagation private` (os-installer.realos.ts): the
 * agent's installOs with the real os-installer as the initramfs carries it (an
 * initramfs-like root dir holding usr/lib/metal-hammer/os-installer and os-installer.json),
 * installing the lab's Debian image (no installer of its own) onto a root (ext4) and an
 * ESP (vfat) that are loop devices of image files.
 *
 *   bun os-installer-driver.ts <image URL> <root dev> <esp dev> <root uuid> <work dir> <timeoutMs> <carried root> [<JSON>]
 *
 * The optional JSON is merged into the allocation as the apiserver sent it (fields our
 * decoder does not know reach machine-allocation.yaml only).
 *
 * First /dev is replaced, in this mount namespace only, by a tmpfs holding the basic
 * character devices and the two loop devices: the agent binds /dev into the chroot, so
 * the installer sees no disk of the host. /sys is the host's (read-only facts; it has no
 * /sys/firmware/efi and no /sys/class/dmi, so os-installer takes the machine for a
 * virtual one and the agent mounts no efivarfs). stdout: the agent's JSON log lines,
 * then one `RESULT {...}` line with what the installer left in the target. The ESP is
 * FAT, mounted with fusefat: this machine's kernel has no vfat (the QEMU lab's has).
 */
import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { AgentError } from "../../src/platform/errors.ts";
import { MachineAllocationSchema } from "../../src/gen/metalstack/api/v2/machine_pb.ts";
import { HttpClient } from "../../src/clients/http/http-client.ts";
import { readCarriedInstaller } from "../../src/install/carried-installer.ts";
import { installOs } from "../../src/install/install.ts";
import { createLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { REALOS_ALLOCATION, REALOS_MACHINE_ID, REALOS_NICS } from "./allocation.ts";

const [imageUrl, rootDev, espDev, rootUuid, work, timeout, carriedRoot, extra] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];
const carried = readCarriedInstaller(carriedRoot);
if (!carried.present) throw new Error(`${carriedRoot}: ${carried.why}`);

function sh(cmd: string): string {
  const r = spawnSync("sh", ["-c", cmd], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`);
  return r.stdout;
}

// A /dev with no disk of the host in it (this mount namespace only).
const nodes = [rootDev, espDev].map((d) => ({ path: d, rdev: statSync(d).rdev }));
// One shell for all of it: a process spawned in between would find no /dev/null (Bun then creates a plain file there).
const chars = [
  ["null", 1, 3],
  ["zero", 1, 5],
  ["full", 1, 7],
  ["random", 1, 8],
  ["urandom", 1, 9],
  ["tty", 5, 0],
  ["fuse", 10, 229],
].map(([n, ma, mi]) => `mknod -m 0666 /dev/${n} c ${ma} ${mi}`);
const blocks = nodes.map((n) => `mknod -m 0600 ${n.path} b ${Math.floor(n.rdev / 256) & 0xfff} ${(n.rdev & 0xff) | ((n.rdev >> 12) & 0xfff00)}`);
sh(
  [
    "mount -t tmpfs -o mode=0755,nosuid devtmp /dev",
    ...chars,
    ...blocks,
    "mkdir -p /dev/pts /dev/shm",
    "mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts",
    "ln -s pts/ptmx /dev/ptmx",
    "mount -t tmpfs shm /dev/shm",
    "ln -s /proc/self/fd /dev/fd",
  ].join(" && "),
);

const target = join(work, "target");
mkdirSync(target, { recursive: true });
// This machine's kernel has no vfat: the ESP (a real FAT filesystem, mkfs.vfat) is mounted through FUSE (fusefat), named
// after its device so that grub-install, which reads the filesystem itself, finds and probes it as FAT.
sh(`mount -t ext4 ${rootDev} ${target} && mkdir -p ${target}/boot/efi && fusefat -o rw+,fsname=${espDev} ${espDev} ${target}/boot/efi > ${work}/fusefat.log 2>&1`);

const secrets = new SecretSet();
const log = createLogger({ level: "info", format: "json", write: (l) => process.stdout.write(l), secrets });
const http = new HttpClient({ caBundle: "/nonexistent", allowHttp: true, log });
let result: Record<string, unknown>;
const started = performance.now();
try {
  const out = await installOs({
    http,
    log,
    secrets,
    imageUrl: new URL(imageUrl),
    root: target,
    machineId: REALOS_MACHINE_ID,
    nics: REALOS_NICS,
    allocation: fromJson(MachineAllocationSchema, REALOS_ALLOCATION),
    allocationAsSent: { ...REALOS_ALLOCATION, ...(extra ? (JSON.parse(extra) as JsonObject) : {}) },
    console: "ttyS0,115200n8",
    raidEnabled: false,
    rootUuid,
    installerTimeoutMs: Number(timeout),
    carried,
  });
  result = {
    ok: true,
    binary: out.installer.binary,
    choice: out.installer.choice.kind,
    choiceReason: out.installer.choice.reason,
    installerMs: out.installer.ms,
    bootInfo: out.bootInfo,
    imageBytes: out.image.bytes,
  };
} catch (e) {
  const err = e as AgentError;
  result = { ok: false, code: err.code, exitCode: err.exitCode, message: secrets.scrub(err.message) };
}
await http.close();
const tolerant = <T>(f: () => T): T | string => {
  try {
    return f();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
};
const read = (p: string) => tolerant(() => (existsSync(join(target, p)) ? readFileSync(join(target, p), "utf8") : null));
const list = (p: string) => tolerant(() => (existsSync(join(target, p)) ? readdirSync(join(target, p)).sort() : null));
const files = {
  hostname: read("etc/hostname"),
  hosts: read("etc/hosts"),
  resolvConf: read("etc/resolv.conf"),
  frrConf: read("etc/frr/frr.conf"),
  networkd: list("etc/systemd/network"),
  defaultGrub: read("etc/default/grub"),
  grubCfg: read("boot/grub/grub.cfg") !== null,
  esp: list("boot/efi/EFI"),
  espBoot: list("boot/efi/EFI/BOOT"),
  bootInfo: read("etc/metal/boot-info.yaml"),
  buildMeta: read("etc/metal/build-meta.yaml"),
  metalUser:
    String(read("etc/passwd") ?? "")
      .split("\n")
      .find((l) => l.startsWith("metal:")) ?? null,
  machineId: read("etc/machine-id"),
  lvmlocal: read("etc/lvm/lvmlocal.conf"),
  allocationPersisted: read("etc/metal/machine-allocation.yaml"),
  // The carried copy is removed after the run, whatever happened.
  installerLeft: existsSync(join(target, "os-installer")),
};
sh(`umount -R ${target}`);
process.stdout.write(`RESULT ${JSON.stringify({ ...result, wallMs: Math.round(performance.now() - started), files })}\n`);
