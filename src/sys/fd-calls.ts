/**
 * The file-descriptor calls the clock and watchdog bindings share (open, ioctl, write,
 * close, clock_settime), over bun:ffi as src/sys/libc.ts does: glibc opened on
 * first use, so importing costs nothing in tests; errno read right after the failing
 * call on the same thread.
 */
import { dlopen, read, type Pointer } from "bun:ffi";

export const O_RDONLY = 0;
export const O_WRONLY = 1;
export const O_CLOEXEC = 0o2000000;

function open() {
  return dlopen("libc.so.6", {
    open: { args: ["ptr", "i32"], returns: "i32" },
    ioctl: { args: ["i32", "u64", "ptr"], returns: "i32" },
    write: { args: ["i32", "ptr", "u64"], returns: "i32" },
    close: { args: ["i32"], returns: "i32" },
    clock_settime: { args: ["i32", "ptr"], returns: "i32" },
    __errno_location: { args: [], returns: "ptr" },
  }).symbols;
}

export type FdCalls = ReturnType<typeof open>;
let lib: FdCalls | undefined;
export const fdCalls = (): FdCalls => (lib ??= open());
export const errno = (): number => read.i32(fdCalls().__errno_location() as Pointer, 0);
export const cstr = (s: string): Buffer => Buffer.from(s + "\0");

const ERRNO_NAMES: Readonly<Record<number, string>> = {
  1: "EPERM", 2: "ENOENT", 5: "EIO", 9: "EBADF", 13: "EACCES", 16: "EBUSY", 19: "ENODEV", 22: "EINVAL", 25: "ENOTTY", 30: "EROFS", 95: "EOPNOTSUPP",
};

/** The errno's name as in errno.h, or `errno N`. */
export const errnoText = (e: number): string => ERRNO_NAMES[e] ?? `errno ${e}`;
