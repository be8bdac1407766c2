/**
 * The built-in flow touches disks only when metal-hammer boots the machine: "/" is the
 * agent's initramfs (platform/fs/initramfs-root.ts). Anywhere else (an installed system,
 * a test host) the wipe and the layout refuse before anything is read or written. By
 * hand, `metal-hammer disk wipe|apply --yes` is not guarded.
 */
import { AgentError } from "../../platform/errors.ts";
import type { RootFs } from "../../platform/fs/initramfs-root.ts";

/** Throws disks_guarded naming what "/" is, unless `root` is the initramfs; `what` is the refused act ("wipe the disks"). Pure. */
export function refuseOutsideInitramfs(what: string, root: RootFs): void {
  if (root.initramfs) return;
  throw new AgentError(
    "disks_guarded",
    `refusing to ${what}: / is ${root.type ?? "unknown (no /proc/self/mounts)"}, not the agent's initramfs (rootfs, tmpfs or ramfs); the built-in flow touches disks only when metal-hammer boots the machine (by hand: metal-hammer disk wipe|apply --yes)`,
    { rootFs: root.type ?? null },
  );
}
