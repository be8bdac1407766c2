/**
 * The install stage as one function, for the flow: stream the image onto the mounted
 * target, write the installer contract with a fresh console password, run the
 * installer, on UEFI set the boot order (the installed OS's entry, named by boot-info's
 * bootloader_id, first, then network boot: src/install/efi; metal-hammer cmd/install.go calls
 * EnsureBootOrder there too), and hand back what comes next: the boot-info for kexec and the data of
 * the report (BootService/InstallationSucceeded{uuid, console_password}: the call
 * itself belongs to the api layer). Each step is also exported on its own
 * (installImage, writeContract, runInstaller, bootInstalled).
 */
import { existsSync } from "node:fs";
import { ensureBootOrder, type BootOrderInput, type BootOrderOutcome } from "./efi/ensure-boot-order.ts";
import type { MachineAllocation, MachineNic } from "../gen/metalstack/api/v2/machine_pb.ts";
import type { HttpClient } from "../clients/http/http-client.ts";
import type { RetryPolicy } from "../clients/http/retry.ts";
import type { Logger } from "../platform/log/logger.ts";
import type { SecretSet } from "../platform/log/redact.ts";
import type { MountSys } from "../platform/sys/mount.ts";
import type { BootInfo } from "./boot-info.ts";
import { allocationSecrets, contractFiles, type JsonObject } from "./contract.ts";
import { installImage, type ImageInstallResult } from "./image.ts";
import type { OciConfigs } from "./oci/credentials.ts";
import { installOciImage } from "./oci/pull.ts";
import type { CarriedInstaller } from "./carried-installer.ts";
import { runInstaller, type InstallerResult } from "./installer.ts";
import { generateConsolePassword } from "./console-password.ts";
import { writeContract } from "./write-contract.ts";

export interface InstallInput {
  readonly http: HttpClient;
  readonly log: Logger;
  readonly secrets: SecretSet;
  /** The image URL, already mapped through METAL_IMAGE_CACHE_URL by the caller. */
  readonly imageUrl: URL;
  /** Set for an oci:// image: installed from the registry instead (imageUrl then only names it). */
  readonly oci?: { readonly reference: string; readonly configs: OciConfigs; readonly mirror?: URL | undefined };
  /** The mounted target root (from the disks stage). */
  readonly root: string;
  readonly machineId: string;
  /** The NICs as Register sent them (with their switch neighbours). */
  readonly nics: readonly MachineNic[];
  /** The allocation as Wait decoded it (the generated message). */
  readonly allocation: MachineAllocation;
  /** The allocation as the apiserver sent it (unknown fields kept): machine-allocation.yaml. */
  readonly allocationAsSent: JsonObject;
  readonly console: string;
  readonly raidEnabled: boolean;
  readonly rootUuid: string;
  readonly stallMs?: number;
  readonly imageRetry?: RetryPolicy;
  readonly installerTimeoutMs?: number;
  readonly mounts?: MountSys;
  readonly now?: () => Date;
  /** The sysfs root the ESP's block devices are read from (default /sys; the flow: --sysfs). */
  readonly sysRoot?: string;
  /** Where the kernel shows UEFI (default /sys/firmware/efi): present, the installer gets efivarfs and the boot order is set; absent, both are skipped. */
  readonly efiDir?: string;
  /** The os-installer the initramfs carries: run when the image has no installer of its own. */
  readonly carried?: CarriedInstaller;
  /** The UEFI boot order step (default: ensureBootOrder on this machine's efivarfs). */
  readonly bootOrder?: (b: BootOrderInput) => Promise<BootOrderOutcome>;
}

/** The request data of BootService/InstallationSucceeded (field names of the proto, protobuf JSON). */
export interface InstallationSucceededData {
  readonly uuid: string;
  /** A secret: registered in the SecretSet, never logged. */
  readonly consolePassword: string;
}

export interface InstallOutput {
  readonly image: ImageInstallResult;
  readonly installer: InstallerResult;
  readonly bootInfo: BootInfo;
  readonly report: InstallationSucceededData;
}

export async function installOs(i: InstallInput): Promise<InstallOutput> {
  const bounds = { ...(i.stallMs !== undefined ? { stallMs: i.stallMs } : {}), ...(i.imageRetry ? { retry: i.imageRetry } : {}) };
  const image = i.oci
    ? await installOci(i, i.oci, bounds)
    : await installImage({
        http: i.http,
        url: i.imageUrl,
        root: i.root,
        log: i.log,
        ...bounds,
      });
  const consolePassword = generateConsolePassword(i.secrets);
  for (const secret of allocationSecrets(i.allocation, i.allocationAsSent)) i.secrets.add(secret);
  const files = contractFiles({
    machineId: i.machineId,
    nics: i.nics,
    password: consolePassword,
    console: i.console,
    raidEnabled: i.raidEnabled,
    rootUuid: i.rootUuid,
    allocation: i.allocation,
    allocationAsSent: i.allocationAsSent,
    timestamp: (i.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z"),
  });
  await writeContract(i.root, files, i.log);
  const installer = await runInstaller({
    root: i.root,
    log: i.log,
    scrub: (t) => i.secrets.scrub(t),
    ...(i.installerTimeoutMs !== undefined ? { timeoutMs: i.installerTimeoutMs } : {}),
    ...(i.mounts ? { mounts: i.mounts } : {}),
    ...(i.efiDir !== undefined ? { uefi: existsSync(i.efiDir) } : {}),
    ...(i.carried ? { carried: i.carried } : {}),
  });
  await (i.bootOrder ?? ensureBootOrder)({
    log: i.log,
    bootloaderId: installer.bootInfo.bootloaderId,
    root: i.root,
    ...(i.sysRoot !== undefined ? { sysRoot: i.sysRoot } : {}),
    ...(i.mounts ? { mounts: i.mounts } : {}),
    ...(i.efiDir !== undefined ? { efiDir: i.efiDir } : {}),
  });
  return { image, installer, bootInfo: installer.bootInfo, report: { uuid: i.machineId, consolePassword } };
}

/** An oci:// image, its result in the shape of the tar image's (the manifest digest as the checksum). */
async function installOci(i: InstallInput, oci: NonNullable<InstallInput["oci"]>, bounds: { stallMs?: number; retry?: RetryPolicy }): Promise<ImageInstallResult> {
  const r = await installOciImage({
    http: i.http,
    reference: oci.reference,
    root: i.root,
    log: i.log,
    secrets: i.secrets,
    ociConfigs: oci.configs,
    ...(oci.mirror ? { mirror: oci.mirror } : {}),
    ...bounds,
  });
  return {
    url: r.reference,
    bytes: r.bytes,
    checksum: { algo: "sha256", hex: r.manifest.slice("sha256:".length) },
    passes: r.passes,
    resumes: r.layers.reduce((n, l) => n + l.resumes, 0),
    restarts: 0,
    ms: r.ms,
  };
}
