/**
 * Whether this process runs from the agent's initramfs: "/" is the kernel's rootfs
 * (rootfs, tmpfs or ramfs), read from /proc/self/mounts. The fact the disks and the
 * BMC guard on (machine/disk/guard.ts, machine/bmc/in-band.ts): a `run` started on an
 * installed system or a test host must never wipe its disks or change its BMC.
 */
import { rootFsType } from "./mount-table.ts";
import { readBoundedTextSync } from "./read-bounded.ts";

/** "/" of the agent's initramfs: the kernel's rootfs (ramfs or tmpfs). */
const INITRAMFS_ROOT: ReadonlySet<string> = new Set(["rootfs", "tmpfs", "ramfs"]);

export interface RootFs {
  /** "/" is the agent's initramfs. */
  readonly initramfs: boolean;
  /** The filesystem type at "/"; undefined when /proc/self/mounts cannot be read or has no "/". */
  readonly type: string | undefined;
}

/** What "/" is, from a /proc/self/mounts text (undefined: unreadable). Pure. */
export function rootFsOf(mounts: string | undefined): RootFs {
  const type = mounts === undefined ? undefined : rootFsType(mounts);
  return { initramfs: type !== undefined && INITRAMFS_ROOT.has(type), type };
}

/** What "/" is on this machine, read now. */
export function readRootFs(mountsPath = "/proc/self/mounts"): RootFs {
  let text: string | undefined;
  try {
    text = readBoundedTextSync(mountsPath, "textFile");
  } catch {
    text = undefined;
  }
  return rootFsOf(text);
}
