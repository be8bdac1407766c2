/**
 * openat2(2) with RESOLVE_IN_ROOT, and the *at calls that go with it, through the one
 * libc binding (libc.ts; glibc has no openat2 wrapper: syscall 437 on x86-64,
 * arch/x86/entry/syscalls/syscall_64.tbl). RESOLVE_IN_ROOT resolves every component,
 * symbolic links and ".." included, as if the directory fd were "/": an absolute link in
 * the image is looked up inside the image, and nothing climbs out (Linux 5.6,
 * include/uapi/linux/openat2.h). RESOLVE_NO_MAGICLINKS keeps /proc/<pid>/fd-style links
 * from jumping anywhere. Each call returns an fd (or 0) or -errno.
 */
import { ptr } from "bun:ffi";
import { cstr, libc, O_CLOEXEC, O_RDONLY, O_WRONLY } from "./libc.ts";

export { O_CLOEXEC, O_RDONLY, O_WRONLY };

export const SYS_openat2 = 437; // x86-64
const SYS_mkdirat = 258;
const SYS_unlinkat = 263;
const SYS_renameat = 264;

/** <linux/fcntl.h>, x86-64 */
export const AT_FDCWD = -100;
export const O_CREAT = 0o100;
export const O_EXCL = 0o200;
export const O_NONBLOCK = 0o4000;
export const O_DIRECTORY = 0o200000;
export const O_NOFOLLOW = 0o400000;
export const O_PATH = 0o10000000;
/** <linux/openat2.h> (the two used; NO_XDEV 0x01, NO_SYMLINKS 0x04, BENEATH 0x08 are not) */
export const RESOLVE_NO_MAGICLINKS = 0x02;
export const RESOLVE_IN_ROOT = 0x10;

/** struct open_how { __u64 flags; __u64 mode; __u64 resolve; }: 24 bytes. Pure. */
export function openHow(flags: number, mode: number, resolve: number): Uint8Array {
  const b = new Uint8Array(24);
  const v = new DataView(b.buffer);
  v.setBigUint64(0, BigInt(flags), true);
  v.setBigUint64(8, BigInt(mode), true);
  v.setBigUint64(16, BigInt(resolve), true);
  return b;
}

const rc = (r: number): number => (r < 0 ? -libc().errno() : r);

/** openat2(dirfd, path, {flags, mode, resolve}): the fd or -errno. */
export function openat2(dirfd: number, path: string, flags: number, mode: number, resolve: number): number {
  const p = cstr(path);
  const how = openHow(flags, mode, resolve);
  return rc(libc().syscall(SYS_openat2, dirfd, ptr(p), ptr(how), how.byteLength, 0, 0));
}

export function mkdirat(dirfd: number, name: string, mode: number): number {
  const p = cstr(name);
  return rc(libc().syscall(SYS_mkdirat, dirfd, ptr(p), mode, 0, 0, 0));
}

export function unlinkat(dirfd: number, name: string): number {
  const p = cstr(name);
  return rc(libc().syscall(SYS_unlinkat, dirfd, ptr(p), 0, 0, 0, 0));
}

export function renameat(fromDir: number, from: string, toDir: number, to: string): number {
  const a = cstr(from);
  const b = cstr(to);
  return rc(libc().syscall(SYS_renameat, fromDir, ptr(a), toDir, ptr(b), 0, 0));
}
