/**
 * Which installer finishes the install. Pure.
 *
 * The image's own first, in the order images carried them:
 * - `/install-go`: metal-images of 2022-10 to 2026-08 (metal-images #157 until
 *   metal-stack/metal-images@1917b767 removed it), fed by the v1 contract
 *   (/etc/metal/install.yaml); metal-hammer runs it before `/install.sh`
 *   (metal-stack/metal-hammer@ec148e3 cmd/install.go:81-84);
 * - `/os-installer`: an image that ships os-installer itself (the lab's older images);
 * - `/install.sh`: the oldest images (metal-hammer's default).
 * Else the os-installer the initramfs carries (carried-installer.ts), copied into the
 * target as `/os-installer`, as metal-images' own image test does. Neither: exit 54
 * naming both facts and the build variable.
 */
import { AgentError } from "../platform/errors.ts";
import { describeCarried, type CarriedInstaller, type CarriedInstallerInfo } from "./carried-installer.ts";

export const IMAGE_INSTALLERS = ["/install-go", "/os-installer", "/install.sh"] as const;
export type ImageInstaller = (typeof IMAGE_INSTALLERS)[number];
/** Where the carried installer is put in the target (and run from). */
export const CARRIED_TARGET = "/os-installer";

export type InstallerChoice =
  | { readonly kind: "image"; readonly binary: ImageInstaller; readonly reason: string }
  | { readonly kind: "carried"; readonly binary: typeof CARRIED_TARGET; readonly source: string; readonly info: CarriedInstallerInfo; readonly reason: string };

const WHY_IMAGE: Readonly<Record<ImageInstaller, string>> = {
  "/install-go": "the image carries /install-go (metal-images 2022-10 to 2026-08; it reads /etc/metal/install.yaml)",
  "/os-installer": "the image carries its own /os-installer",
  "/install.sh": "the image carries /install.sh",
};

/** `executable`: which of IMAGE_INSTALLERS the unpacked image has as executable files. */
export function chooseInstaller(executable: ReadonlySet<string>, carried: CarriedInstaller): InstallerChoice {
  const own = IMAGE_INSTALLERS.find((c) => executable.has(c));
  if (own) return { kind: "image", binary: own, reason: WHY_IMAGE[own] };
  const none = `the image has none of ${IMAGE_INSTALLERS.join(", ")} (executable)`;
  if (!carried.present) throw new AgentError("installer", `installer: ${none}, and ${carried.why}`, { candidates: [...IMAGE_INSTALLERS] });
  return {
    kind: "carried",
    binary: CARRIED_TARGET,
    source: carried.path,
    info: carried.info,
    reason: `${none}: the ${describeCarried(carried.info)} this initramfs carries, copied in as ${CARRIED_TARGET}`,
  };
}
