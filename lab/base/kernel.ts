/**
 * Which kernel the lab boots: `KVER` from make (the version Debian's linux-image-amd64
 * depends on), else the newest /boot/vmlinuz-* ("none" on a machine without a kernel:
 * the tests that need one say so).
 * One place, so a Debian ABI bump needs no edit in the tests.
 */
import { existsSync, readdirSync } from "node:fs";
import { COMPRESSORS, DEFAULT_COMPRESSION } from "../../initramfs/lib/compress.ts";

const newest = (names: string[]) => names.sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);

function detectKver(): string {
  if (process.env.KVER) return process.env.KVER;
  const boot = existsSync("/boot") ? readdirSync("/boot").filter((f) => f.startsWith("vmlinuz-")) : [];
  const k = newest(boot);
  return k ? k.slice("vmlinuz-".length) : "none";
}

export const KVER = detectKver();
export const LAB_KERNEL = `build/lab/vmlinux-${KVER}`;
/** The shipped default initramfs (initramfs/lib/compress.ts DEFAULT_COMPRESSION), whatever INITRAMFS says. */
export const DEFAULT_INITRD = `build/initramfs/initramfs-${KVER}.cpio${COMPRESSORS[DEFAULT_COMPRESSION].ext}`;
/** The initramfs the lab boots: make exports INITRAMFS (COMPRESS=...; make test: the lz4 build of the same cpio). */
export const LAB_INITRD = process.env.INITRAMFS ?? DEFAULT_INITRD;
