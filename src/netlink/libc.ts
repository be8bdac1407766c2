/**
 * The few libc calls the agent needs, over bun:ffi. Each thread (main, Worker)
 * dlopens its own handle. `ssize_t` returns are declared i32 (i64 yields BigInt);
 * errno is read with __errno_location() right after a failing call, same thread.
 */
import { dlopen, read, FFIType } from "bun:ffi";

const { i32, u32, u64, ptr } = FFIType;

export function openLibc() {
  const lib = dlopen("libc.so.6", {
    socket: { args: [i32, i32, i32], returns: i32 },
    bind: { args: [i32, ptr, u32], returns: i32 },
    setsockopt: { args: [i32, i32, i32, ptr, u32], returns: i32 },
    getsockopt: { args: [i32, i32, i32, ptr, ptr], returns: i32 },
    sendto: { args: [i32, ptr, u64, i32, ptr, u32], returns: i32 },
    recv: { args: [i32, ptr, u64, i32], returns: i32 },
    poll: { args: [ptr, u64, i32], returns: i32 },
    close: { args: [i32], returns: i32 },
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

let shared: Libc | undefined;
/** One handle per thread. */
export function libc(): Libc {
  shared ??= openLibc();
  return shared;
}

export function int32(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, v, true);
  return b;
}

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
