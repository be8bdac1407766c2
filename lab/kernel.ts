/**
 * Which kernel the lab boots: `KVER` from make (the version Debian's linux-image-amd64
 * depends on), else the newest /boot/vmlinuz-* ("none" on a machine without a kernel:
 * the tests that need one say so).
 * One place, so a Debian ABI bump needs no edit in the tests.
 */
import { existsSync, readdirSync } from "node:fs";

const newest = (names: string[]) => names.sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);

function detectKver(): string {
  if (process.env.KVER) return process.env.KVER;
  const boot = existsSync("/boot") ? readdirSync("/boot").filter((f) => f.startsWith("vmlinuz-")) : [];
  const k = newest(boot);
  return k ? k.slice("vmlinuz-".length) : "none";
}

export const KVER = detectKver();
export const LAB_KERNEL = `build/lab/vmlinux-${KVER}`;
/** The default initramfs (make exports INITRAMFS, e.g. with COMPRESS=lz4; xz is the default: initramfs/lib/compress.ts). */
export const LAB_INITRD = process.env.INITRAMFS ?? `build/initramfs/initramfs-${KVER}.cpio.xz`;
