/**
 * The os-installer the initramfs carries. metal-images no longer put an installer into
 * their images (metal-stack/metal-images@1917b767 "Remove install-go", #426; its
 * debian/Dockerfile installs none); their own image test copies `/os-installer` from the
 * os-installer release image into the unpacked root and runs it in a chroot
 * (metal-stack/metal-images@1917b767 test/00_create_disk.sh:45-49). So the agent brings
 * one: `make initramfs OS_INSTALLER=PATH OS_INSTALLER_VERSION=vX.Y.Z` puts the binary at
 * CARRIED_INSTALLER_PATH and its facts (version, sha256, size) beside it as JSON
 * (initramfs/build.ts). The installer step copies it into the target as `/os-installer`
 * when the image has no installer of its own (installer-choice.ts).
 *
 * This file owns the two paths, the facts' shape and their reading (bounded, validated).
 */
import { join } from "node:path";
import * as z from "zod/mini";
import { readBoundedSync } from "../platform/fs/read-bounded.ts";

/** Where the initramfs keeps the agent's own data files. */
export const CARRIED_INSTALLER_DIR = "/usr/lib/metal-hammer";
/** The carried os-installer binary in the initramfs. */
export const CARRIED_INSTALLER_PATH = `${CARRIED_INSTALLER_DIR}/os-installer`;
/** Its facts, written by the initramfs build: CarriedInstallerInfo as JSON. */
export const CARRIED_INSTALLER_INFO_PATH = `${CARRIED_INSTALLER_DIR}/os-installer.json`;
/** The make variable an operator sets to carry one (named in errors). */
export const CARRIED_INSTALLER_BUILD_VAR = "make initramfs OS_INSTALLER=PATH OS_INSTALLER_VERSION=vX.Y.Z";
/** The info file is a few lines; the binary a static Go program (~10-40 MiB). */
const INFO_CAP = 64 * 1024;
export const CARRIED_INSTALLER_CAP = 256 * 1024 * 1024;

// zod/mini, not zod: `version` reads this file, and the full API's initialisation is
// ~15 ms of that command's start-up (bench/startup.ts, docs/build.md).
const infoSchema = z.strictObject({
  /** What the binary is: metal-stack's os-installer, or the lab's test installer. */
  name: z.string().check(z.regex(/^[a-z0-9][a-z0-9._-]{0,63}$/)),
  version: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$/)),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  bytes: z.int().check(z.positive(), z.maximum(CARRIED_INSTALLER_CAP)),
  /** `elf-static` for a static ELF program (os-installer); `script` for a `#!` script (run by the image's interpreter). */
  kind: z.enum(["elf-static", "script"]),
});

export type CarriedInstallerInfo = z.infer<typeof infoSchema>;

/** What this initramfs carries: an installer (its file and facts), or why there is none. */
export type CarriedInstaller = { readonly present: true; readonly path: string; readonly info: CarriedInstallerInfo } | { readonly present: false; readonly why: string };

export class CarriedInstallerError extends Error {
  override readonly name = "CarriedInstallerError";
}

/** The facts from the info file's text. Pure; throws CarriedInstallerError naming the field and what was expected. */
export function parseCarriedInstallerInfo(text: string, where: string): CarriedInstallerInfo {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new CarriedInstallerError(`${where}: not JSON (${(e as Error).message})`);
  }
  const r = infoSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new CarriedInstallerError(`${where}: ${i.path.join(".") || "(top)"}: ${i.message} (expected {name, version, sha256: 64 hex, bytes, kind: elf-static|script})`);
  }
  return r.data;
}

/** `os-installer v0.3.1 (sha256 0123456789ab…)`: for log lines and the Register's version text. */
export function describeCarried(info: CarriedInstallerInfo): string {
  return `${info.name} ${info.version} (sha256 ${info.sha256.slice(0, 12)})`;
}

/** What the initramfs under `root` carries (default: this machine's `/`). Never throws: a broken info file is a reason. */
export function readCarriedInstaller(root = "/"): CarriedInstaller {
  const infoPath = join(root, CARRIED_INSTALLER_INFO_PATH);
  let text: string;
  try {
    text = new TextDecoder().decode(readBoundedSync(infoPath, INFO_CAP));
  } catch (e) {
    if ((e as { code?: unknown }).code === "ENOENT")
      return { present: false, why: `this initramfs carries no os-installer (no ${CARRIED_INSTALLER_INFO_PATH}; ${CARRIED_INSTALLER_BUILD_VAR})` };
    return { present: false, why: `the carried installer's ${CARRIED_INSTALLER_INFO_PATH} is unreadable: ${(e as Error).message}` };
  }
  try {
    return { present: true, path: join(root, CARRIED_INSTALLER_PATH), info: parseCarriedInstallerInfo(text, CARRIED_INSTALLER_INFO_PATH) };
  } catch (e) {
    return { present: false, why: (e as Error).message };
  }
}

/**
 * The agent's version as Register reports it (metal_hammer_version, at most 256
 * characters: metal-stack/api@e6201fcb proto/metalstack/infra/v2/boot.proto:93
 * is_description), with the carried installer when there is one: the control plane then
 * sees which os-installer installs this machine's image.
 */
export function versionWithCarried(agentVersion: string, c: CarriedInstaller): string {
  return c.present ? `${agentVersion}, carries ${describeCarried(c.info)}` : agentVersion;
}
