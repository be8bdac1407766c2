/**
 * The system calls PID 1 and the hand-off need, over the one libc binding (libc.ts):
 * mount(2), finit_module(2) (by number, glibc has no wrapper), sync(2), waitpid(2),
 * open/dup2 for the console, execve(2) (reboot(2) is reboot.ts). Each returns 0 or an errno.
 */
import { ptr } from "bun:ffi";
import { cstr, libc, result } from "./libc.ts";

const SYS_finit_module = 313; // x86-64

export const WNOHANG = 1;
export const O_RDWR = 2;
export const O_NOCTTY = 0o400;

export function mount(source: string, target: string, fstype: string, flags: number, data: string): number {
  return result(libc().mount(cstr(source), cstr(target), cstr(fstype), flags, cstr(data)));
}

export function finitModule(fd: number, params = ""): number {
  const p = cstr(params);
  return result(libc().syscall(SYS_finit_module, fd, ptr(p), 0, 0, 0));
}

export function sync(): void {
  libc().sync();
}

const TIOCOUTQ = 0x5411;
/** How long drainConsole waits at most: a console held by flow control must not stop a reboot. */
export const CONSOLE_DRAIN_MS = 1000;

/**
 * Waits until the console (stdout, stderr) has sent what was written to it, at most
 * `boundMs`: a line written just before reboot(2) may still sit in the tty's output
 * queue, and a serial line is slow (115200 baud: ~11 bytes a millisecond). Polls the
 * queue (TIOCOUTQ) rather than tcdrain(3), which has no bound. Not a tty: returns at once.
 */
export function drainConsole(boundMs = CONSOLE_DRAIN_MS): void {
  const end = performance.now() + boundMs;
  const pending = new Int32Array(1);
  for (const fd of [1, 2]) {
    while (libc().ioctl(fd, TIOCOUTQ, pending) === 0 && (pending[0] ?? 0) > 0 && performance.now() < end) Bun.sleepSync(5);
  }
}

/** Non-blocking wait for one child; returns its pid, 0 if it still runs, or -errno. */
export function waitpidNoHang(pid: number): number {
  const status = new Int32Array(1);
  const rc = libc().waitpid(pid, status, WNOHANG);
  return rc < 0 ? -libc().errno() : rc;
}

/** Opens `path` onto fds 0, 1 and 2 (the console, when the kernel could not). */
export function attachStdio(path: string): number {
  const c = libc();
  const fd = c.open(cstr(path), O_RDWR | O_NOCTTY);
  if (fd < 0) return c.errno();
  for (const target of [0, 1, 2]) if (c.dup2(fd, target) < 0) return c.errno();
  if (fd > 2) c.close(fd);
  return 0;
}

/** NUL-terminated C string buffers plus a NULL-terminated pointer array over them. */
function cStringArray(items: readonly string[]): { array: BigUint64Array; keep: Buffer[] } {
  const keep = items.map((s) => cstr(s));
  const array = new BigUint64Array(items.length + 1);
  keep.forEach((b, i) => (array[i] = BigInt(ptr(b))));
  array[items.length] = 0n;
  return { array, keep };
}

/** execve(2): does not return on success; returns the errno when the exec failed. */
export function execve(path: string, argv: readonly string[], env: readonly string[]): number {
  const file = cstr(path);
  const a = cStringArray(argv);
  const e = cStringArray(env);
  const rc = libc().execve(ptr(file), ptr(a.array), ptr(e.array));
  return result(rc);
}
