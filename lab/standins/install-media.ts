/**
 * What a lab install run needs besides the lab: a sparse 1 GiB raw disk image for the VM
 * and the test OS image (lab/images/build.ts) with `kernel` as the installed kernel (and,
 * with `efi`, GRUB's EFI build; `installer`: where the image carries its installer, or
 * `none` for the one the initramfs carries), both under `dir` (disk.raw, image/).
 */
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestImage, type TestImage, type TestImageInstaller } from "../images/build.ts";

export const INSTALL_DISK_BYTES = 1 << 30;

export function installMedia(
  dir: string,
  o: { readonly kernel: string; readonly efi?: boolean; readonly installer?: TestImageInstaller },
): { readonly disk: string; readonly image: TestImage } {
  mkdirSync(dir, { recursive: true });
  const image = buildTestImage(join(dir, "image"), { kernel: o.kernel, efi: o.efi === true, ...(o.installer ? { installer: o.installer } : {}) });
  const disk = join(dir, "disk.raw");
  writeFileSync(disk, "");
  truncateSync(disk, INSTALL_DISK_BYTES);
  return { disk, image };
}
