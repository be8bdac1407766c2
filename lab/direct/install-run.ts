/**
 * One lab run of the whole install (the install e2e suites): a fresh sparse 1 GiB disk
 * image in `dir`, the test OS image with `kernel` as its kernel, the stand-ins serving it
 * (`--image`; `--esp` for the UEFI layout), the run expected to end in the installed OS's
 * power-off (its initrd says `testos: up` and powers off).
 */
import type { TestImageInstaller } from "../images/build.ts";
import { installMedia } from "../standins/install-media.ts";
import { defaultRun, runLab, type LabResult, type LabRun } from "./lab.ts";
import { standinServersWith } from "../standins/servers.ts";

export interface InstallRunOptions {
  /** The installed OS's kernel (a bzImage, kexec'd by the agent). */
  readonly kernel: string;
  readonly timeoutMs: number;
  /** QEMU arguments attaching the disk image. */
  readonly diskQemu: (disk: string) => string[];
  /** The UEFI install: GRUB's EFI build in the image, the layout with an ESP. */
  readonly uefi?: boolean;
  /** Where the test OS image carries its installer (default /install.sh); `none`: the initramfs's carried one runs. */
  readonly installer?: TestImageInstaller;
  /** More of the run's settings (firmware arguments, the kernel the lab boots). */
  readonly run?: Partial<LabRun>;
}

export async function runInstall(dir: string, o: InstallRunOptions): Promise<{ r: LabResult; disk: string }> {
  const { disk, image: img } = installMedia(dir, { kernel: o.kernel, efi: o.uefi === true, ...(o.installer ? { installer: o.installer } : {}) });
  const extra = ["--image", img.image, ...(o.uefi ? ["--esp"] : [])];
  const r = await runLab(
    defaultRun({
      live: false,
      timeoutMs: o.timeoutMs,
      expect: "poweroff",
      ...o.run,
      extraQemu: [...(o.run?.extraQemu ?? []), ...o.diskQemu(disk)],
      servers: standinServersWith(extra),
    }),
  );
  return { r, disk };
}
