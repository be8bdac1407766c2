/**
 * The filesystems PID 1 mounts, as data, and which of them still need mounting
 * given /proc/self/mounts (the /init shim mounts /proc before the agent starts;
 * mounting it again would stack a second instance). Pure.
 */
import type { MountedFs } from "../platform/fs/mount-table.ts";

export const MS_NOSUID = 0x2;
export const MS_NODEV = 0x4;
export const MS_NOEXEC = 0x8;
export const MS_RELATIME = 0x200000;

export interface Mount {
  readonly source: string;
  readonly target: string;
  readonly fstype: string;
  readonly flags: number;
  readonly data: string;
  /** Directory mode when the target must be created. */
  readonly dirMode: number;
}

export const MOUNT_PLAN: readonly Mount[] = [
  { source: "proc", target: "/proc", fstype: "proc", flags: MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, data: "", dirMode: 0o555 },
  { source: "sysfs", target: "/sys", fstype: "sysfs", flags: MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, data: "", dirMode: 0o555 },
  { source: "devtmpfs", target: "/dev", fstype: "devtmpfs", flags: MS_NOSUID | MS_RELATIME, data: "mode=0755", dirMode: 0o755 },
  { source: "devpts", target: "/dev/pts", fstype: "devpts", flags: MS_NOSUID | MS_NOEXEC | MS_RELATIME, data: "gid=5,mode=0620,ptmxmode=0666", dirMode: 0o755 },
  { source: "tmpfs", target: "/run", fstype: "tmpfs", flags: MS_NOSUID | MS_NODEV | MS_RELATIME, data: "mode=0755", dirMode: 0o755 },
  { source: "tmpfs", target: "/tmp", fstype: "tmpfs", flags: MS_NOSUID | MS_NODEV | MS_RELATIME, data: "mode=1777", dirMode: 0o1777 },
];

/** The plan without the entries already mounted with the same type at the same place. */
export function pendingMounts(plan: readonly Mount[], mounted: readonly MountedFs[]): Mount[] {
  return plan.filter((m) => !mounted.some((x) => x.target === m.target && x.fstype === m.fstype));
}
