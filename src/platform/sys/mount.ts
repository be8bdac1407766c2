/**
 * mount(2) and umount2(2) through bun:ffi over glibc, for the installer's chroot
 * (bind mounts of /dev, /proc, /sys into the target root). Opened on first use, so
 * importing this file costs nothing in tests. Each call returns 0 or an errno.
 */
import { cstr, libc, result } from "./libc.ts";

/** <linux/mount.h> */
export const MS_RDONLY = 1;
export const MS_BIND = 4096;
export const MS_REC = 16384;
/** <sys/mount.h> umount2 flags */
export const MNT_DETACH = 2;
/** Do not follow a link at the target (the path a bind was made at stays what it was). */
export const UMOUNT_NOFOLLOW = 8;

/** The mount calls the installer needs, as an interface so tests inject a recorder. */
export interface MountSys {
  mount(source: string, target: string, fstype: string, flags: number): number;
  umount(target: string, flags: number): number;
}

export const linuxMount: MountSys = {
  mount: (source, target, fstype, flags) => result(libc().mount(cstr(source), cstr(target), cstr(fstype), flags, null)),
  umount: (target, flags) => result(libc().umount2(cstr(target), flags)),
};
