/**
 * Which kernel the lab boots: `KVER` from make (the version Debian's linux-image-amd64
 * depends on), else the newest /boot/vmlinuz-*, else the newest module list in the repo.
 * One place, so a Debian ABI bump needs no edit in the tests.
 */
import { existsSync, readdirSync } from "node:fs";

const newest = (names: string[]) => names.sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);

function detectKver(): string {
  if (process.env.KVER) return process.env.KVER;
  const boot = existsSync("/boot") ? readdirSync("/boot").filter((f) => f.startsWith("vmlinuz-")) : [];
  const k = newest(boot);
  if (k) return k.slice("vmlinuz-".length);
  const lists = readdirSync(new URL("../../initramfs/modules/", import.meta.url)).filter((f) => f.endsWith(".list"));
  return (newest(lists) ?? "unknown.list").slice(0, -".list".length);
}

export const KVER = detectKver();
export const LAB_KERNEL = `build/lab/vmlinux-${KVER}`;
export const LAB_INITRD = `build/initramfs/initramfs-${KVER}.cpio.lz4`;
