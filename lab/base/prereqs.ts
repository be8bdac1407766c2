/** What a QEMU lab run needs on the host; the missing ones, each with how to get it (empty: all there). */
import { existsSync } from "node:fs";
import { LAB_INITRD, LAB_KERNEL } from "./kernel.ts";

export function labMissing(extra: readonly (string | undefined)[] = []): string[] {
  return [
    process.getuid?.() === 0 ? undefined : "root",
    existsSync("/dev/net/tun") ? undefined : "/dev/net/tun",
    Bun.which("qemu-system-x86_64") ? undefined : "qemu-system-x86_64",
    Bun.which("radvd") ? undefined : "radvd",
    Bun.which("chronyd") ? undefined : "chronyd (chrony)",
    existsSync(LAB_KERNEL) ? undefined : `${LAB_KERNEL} (make lab-kernel)`,
    existsSync(LAB_INITRD) ? undefined : `${LAB_INITRD} (make initramfs)`,
    ...extra,
  ].filter((m): m is string => m !== undefined);
}
