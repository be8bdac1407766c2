/**
 * Inode flags (chattr's +i) through ioctl(2) FS_IOC_GETFLAGS / FS_IOC_SETFLAGS on an fd
 * opened read-only, as chattr does: efivarfs marks every variable file immutable
 * (Linux Documentation/filesystems/efivarfs.rst) and it must be cleared before a write.
 * Each call returns the flags or 0, or a negative errno.
 */
import { O_CLOEXEC, O_RDONLY, cstr, libc } from "./libc.ts";

/** <linux/fs.h>: _IOR('f', 1, long), _IOW('f', 2, long) on x86-64 (the kernel reads an int). */
export const FS_IOC_GETFLAGS = 0x80086601;
export const FS_IOC_SETFLAGS = 0x40086602;
export const FS_IMMUTABLE_FL = 0x10;
const O_NONBLOCK = 0o4000;

export interface InodeFlags {
  /** The flags, or -errno. */
  get(path: string): number;
  /** 0 or -errno. */
  set(path: string, flags: number): number;
}

function withFd(path: string, f: (fd: number) => number): number {
  const c = libc();
  const fd = c.open(cstr(path), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -c.errno();
  try {
    return f(fd);
  } finally {
    c.close(fd);
  }
}

export const linuxInodeFlags: InodeFlags = {
  get: (path) =>
    withFd(path, (fd) => {
      const c = libc();
      const buf = new Uint8Array(8);
      if (c.ioctl(fd, FS_IOC_GETFLAGS, buf) < 0) return -c.errno();
      return new DataView(buf.buffer).getInt32(0, true);
    }),
  set: (path, flags) =>
    withFd(path, (fd) => {
      const c = libc();
      const buf = new Uint8Array(8);
      new DataView(buf.buffer).setInt32(0, flags, true);
      return c.ioctl(fd, FS_IOC_SETFLAGS, buf) < 0 ? -c.errno() : 0;
    }),
};
