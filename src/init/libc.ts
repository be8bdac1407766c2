/**
 * The system calls PID 1 needs and Bun does not offer, through bun:ffi over glibc:
 * mount(2), finit_module(2) (by number, glibc has no wrapper), reboot(2), sync(2),
 * waitpid(2), open/dup2 for the console. Opened on first use, so importing this file
 * costs nothing in tests. Each call returns 0 or an errno.
 */
import { dlopen, read, type Pointer } from "bun:ffi";

const SYS_finit_module = 313; // x86-64

export const RB_AUTOBOOT = 0x01234567;
export const RB_POWER_OFF = 0x4321fedc;
export const RB_HALT_SYSTEM = 0xcdef0123 | 0;
export const RB_DISABLE_CAD = 0;
export const WNOHANG = 1;
export const O_RDWR = 2;
export const O_NOCTTY = 0o400;

export const ERRNO_NAMES: Readonly<Record<number, string>> = {
  1: "EPERM", 2: "ENOENT", 5: "EIO", 8: "ENOEXEC", 9: "EBADF", 10: "ECHILD", 13: "EACCES", 16: "EBUSY", 17: "EEXIST",
  19: "ENODEV", 20: "ENOTDIR", 22: "EINVAL", 61: "ENODATA", 95: "EOPNOTSUPP", 129: "EKEYREJECTED",
};

export const errnoName = (e: number): string => ERRNO_NAMES[e] ?? `errno ${e}`;

type Lib = ReturnType<typeof open>;
let lib: Lib | undefined;

function open() {
  return dlopen("libc.so.6", {
    mount: { args: ["ptr", "ptr", "ptr", "u64", "ptr"], returns: "i32" },
    syscall: { args: ["i64", "i32", "ptr", "i32"], returns: "i32" },
    reboot: { args: ["i32"], returns: "i32" },
    sync: { args: [], returns: "void" },
    waitpid: { args: ["i32", "ptr", "i32"], returns: "i32" },
    open: { args: ["ptr", "i32"], returns: "i32" },
    dup2: { args: ["i32", "i32"], returns: "i32" },
    close: { args: ["i32"], returns: "i32" },
    __errno_location: { args: [], returns: "ptr" },
  }).symbols;
}

function libc(): Lib {
  lib ??= open();
  return lib;
}

const cstr = (s: string): Buffer => Buffer.from(s + "\0");
const errno = (): number => read.i32(libc().__errno_location() as Pointer, 0);
const result = (rc: number): number => (rc < 0 ? errno() : 0);

export function mount(source: string, target: string, fstype: string, flags: number, data: string): number {
  return result(libc().mount(cstr(source), cstr(target), cstr(fstype), flags, cstr(data)));
}

export function finitModule(fd: number, params = ""): number {
  return result(libc().syscall(SYS_finit_module, fd, cstr(params), 0));
}

export function reboot(cmd: number): number {
  return result(libc().reboot(cmd));
}

export function sync(): void {
  libc().sync();
}

/** Non-blocking wait for one child; returns its pid, 0 if it still runs, or -errno. */
export function waitpidNoHang(pid: number): number {
  const status = new Int32Array(1);
  const rc = libc().waitpid(pid, status, WNOHANG);
  return rc < 0 ? -errno() : rc;
}

/** Opens `path` onto fds 0, 1 and 2 (the console, when the kernel could not). */
export function attachStdio(path: string): number {
  const fd = libc().open(cstr(path), O_RDWR | O_NOCTTY);
  if (fd < 0) return errno();
  for (const target of [0, 1, 2]) if (libc().dup2(fd, target) < 0) return errno();
  if (fd > 2) libc().close(fd);
  return 0;
}
