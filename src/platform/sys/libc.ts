/**
 * The one libc binding (bun:ffi over glibc): every system call the agent makes that
 * Bun does not offer. Opened on first use, once per thread (main, Worker), so
 * importing this file costs nothing. `ssize_t` returns are declared i32 (i64 yields
 * BigInt); errno is read with __errno_location() right after a failing call, on the
 * same thread.
 */
import { dlopen, read, FFIType } from "bun:ffi";

const { i32, i64, u32, u64, ptr } = FFIType;

function openLibc() {
  const lib = dlopen("libc.so.6", {
    // sockets (netlink, AF_PACKET)
    socket: { args: [i32, i32, i32], returns: i32 },
    bind: { args: [i32, ptr, u32], returns: i32 },
    setsockopt: { args: [i32, i32, i32, ptr, u32], returns: i32 },
    getsockopt: { args: [i32, i32, i32, ptr, ptr], returns: i32 },
    sendto: { args: [i32, ptr, u64, i32, ptr, u32], returns: i32 },
    recv: { args: [i32, ptr, u64, i32], returns: i32 },
    poll: { args: [ptr, u64, i32], returns: i32 },
    close: { args: [i32], returns: i32 },
    write: { args: [i32, ptr, u64], returns: i32 },
    ioctl: { args: [i32, u64, ptr], returns: i32 },
    // PID 1 (init) and the hand-off
    mount: { args: [ptr, ptr, ptr, u64, ptr], returns: i32 },
    umount2: { args: [ptr, i32], returns: i32 },
    // long syscall(long number, ...): integer arguments only (pointers as ptr() numbers), so one fixed signature serves every call on x86-64.
    syscall: { args: [i64, i64, i64, i64, i64, i64], returns: i32 },
    clock_settime: { args: [i32, ptr], returns: i32 },
    reboot: { args: [i32], returns: i32 },
    sync: { args: [], returns: FFIType.void },
    waitpid: { args: [i32, ptr, i32], returns: i32 },
    open: { args: [ptr, i32], returns: i32 },
    dup2: { args: [i32, i32], returns: i32 },
    execve: { args: [ptr, ptr, ptr], returns: i32 },
    __errno_location: { args: [], returns: ptr },
  });
  const f = lib.symbols;
  return {
    ...f,
    errno: (): number => {
      const p = f.__errno_location();
      return p === null ? 0 : read.i32(p, 0);
    },
  };
}

export type Libc = ReturnType<typeof openLibc>;

let shared: Libc | undefined;
/** One handle per thread. */
export function libc(): Libc {
  shared ??= openLibc();
  return shared;
}

export const O_RDONLY = 0;
export const O_WRONLY = 1;
export const O_CLOEXEC = 0o2000000;
export const AF_PACKET = 17;
export const SOCK_RAW = 3;
export const SOCK_DGRAM = 2;
export const SOCK_NONBLOCK = 0o4000;
export const SOCK_CLOEXEC = 0o2000000;
export const SOL_SOCKET = 1;
export const SO_ERROR = 4;
export const SO_RCVBUF = 8;
export const SO_RCVBUFFORCE = 33;
export const MSG_DONTWAIT = 0x40;
export const POLLIN = 0x1;

export function int32(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, v, true);
  return b;
}

/** NUL-terminated C string. */
export const cstr = (s: string): Buffer => Buffer.from(s + "\0");

/** 0 for rc >= 0, else errno (same thread, right after the call). */
export const result = (rc: number): number => (rc < 0 ? libc().errno() : 0);

/** struct pollfd { int fd; short events; short revents; } for one fd. */
export function pollOnce(c: Libc, fd: number, timeoutMs: number): { ready: boolean; errno: number } {
  const pfd = new Uint8Array(8);
  const dv = new DataView(pfd.buffer);
  dv.setInt32(0, fd, true);
  dv.setInt16(4, POLLIN, true);
  const r = c.poll(pfd, 1, Math.max(0, Math.floor(timeoutMs)));
  if (r < 0) return { ready: false, errno: c.errno() };
  return { ready: r > 0, errno: 0 };
}
