/**
 * Stage "install" (built-in flow): the allocation's image (through the image cache
 * when METAL_IMAGE_CACHE_URL or metal-boot's image_cache_url is set) streamed onto the
 * mounted target, the installer contract written with a fresh console password, the
 * image's installer run (src/install installOs), then the layout's fstab written into
 * the installed system (TargetRoot.finish). Bounded by METAL_IMAGE_STALL_TIMEOUT
 * and METAL_INSTALLER_TIMEOUT inside; the watchdog is petted throughout.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Boot } from "../clients/metal-boot/boot.ts";
import type { Config } from "../config/config.ts";
import { installedConsole } from "../config/console.ts";
import { AgentError } from "../platform/errors.ts";
import type { MachineAllocation, MachineNic } from "../gen/metalstack/api/v2/machine_pb.ts";
import { downloadUrl } from "../clients/image-cache/cache.ts";
import { isOciUrl, parseOciReference } from "../install/oci/reference.ts";
import type { InstallOutput } from "../install/install.ts";
import type { BootedServices } from "./boot-facts.ts";
import type { TargetRoot } from "./services.ts";

/** The watchdog is petted while the install runs, not past this (the image and installer have their own, shorter bounds per step). */
export const INSTALL_HOLD_MS = 4 * 3600_000;

/** What the `install` stage uses of the services (a test fakes only this). */
export type InstallServices = Pick<BootedServices, "http" | "log" | "secrets" | "installOs" | "manufacturer" | "now" | "sysRoot" | "carriedInstaller" | "ops">;

/** `allocationJson`: the allocation as the apiserver sent it (Wait), written verbatim as machine-allocation.yaml. */
export async function install(
  config: Pick<Config, "console" | "imageStallMs" | "installerTimeoutMs">,
  boot: Pick<Boot, "uuid" | "imageCacheUrl" | "ociConfigs">,
  allocation: MachineAllocation,
  allocationJson: JsonObject,
  target: TargetRoot,
  nics: readonly MachineNic[],
  s: InstallServices,
): Promise<InstallOutput> {
  const url = allocation.image?.url ?? "";
  if (url === "")
    throw new AgentError("bad_answer", `the allocation of ${boot.uuid} names no image URL (image ${allocation.image?.id || "(none)"}): nothing to install`, { uuid: boot.uuid });
  // A bad oci:// reference is named (exit 2) before anything is fetched.
  if (isOciUrl(url)) parseOciReference(url);
  const run = s.installOs({
    http: s.http,
    log: s.log,
    secrets: s.secrets,
    // oci://: from the registry (src/install/oci), not through the image cache.
    imageUrl: isOciUrl(url) ? new URL(url) : downloadUrl(boot.imageCacheUrl, url),
    // The image cache is asked first as the partition's pull-through mirror (its origin's /v2/).
    ...(isOciUrl(url) ? { oci: { reference: url, configs: boot.ociConfigs ?? {}, mirror: boot.imageCacheUrl } } : {}),
    root: target.root,
    machineId: boot.uuid,
    nics,
    allocation,
    allocationAsSent: allocationJson,
    // console= of the cmdline, else by the manufacturer as pixie's boot script picks it.
    console: installedConsole(config.console, s.manufacturer),
    raidEnabled: target.raidEnabled,
    rootUuid: target.rootUuid,
    stallMs: config.imageStallMs,
    installerTimeoutMs: config.installerTimeoutMs,
    now: s.now,
    // UEFI as the sysfs root shows it (--sysfs): firmware/efi there, efivarfs for the installer and the boot order.
    efiDir: `${s.sysRoot}/firmware/efi`,
    sysRoot: s.sysRoot,
    carried: s.carriedInstaller,
  });
  const out = await s.ops.hold(run, INSTALL_HOLD_MS);
  await target.finish();
  return out;
}
