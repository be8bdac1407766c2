/**
 * The Linux watchdog device (/dev/watchdog, Documentation/watchdog/watchdog-api.rst)
 * through bun:ffi over glibc: open, WDIOC_SETTIMEOUT, a ping by write (any byte but
 * 'V'), and the magic close (write 'V', then close) that disarms it. Each call returns
 * 0 or an errno. Opened on first use: importing this file costs nothing in tests.
 */
import { cstr, libc, O_CLOEXEC, O_WRONLY } from "./libc.ts";

const errno = (): number => libc().errno();

export const WATCHDOG_DEVICE = "/dev/watchdog";
/** _IOWR('W', 6, int): sets the timeout in seconds and writes back the one the driver chose. */
export const WDIOC_SETTIMEOUT = 0xc0045706;
/** What a ping writes (the kernel pings on any write; only 'V' arms the magic close). */
export const PING_BYTE = 0x2e; // "."
export const MAGIC_BYTE = 0x56; // "V"

/** What the watchdog core (src/ops/watchdog/) needs from a device. */
export interface WatchdogDevice {
  /** Sets the timeout; the seconds the driver accepted, or -errno. */
  setTimeout(seconds: number): number;
  /** One ping; 0 or an errno. */
  ping(): number;
  /** Writes 'V' and closes: the watchdog stops (unless the kernel has nowayout); 0 or an errno. */
  magicClose(): number;
}

/** Opens the device (this arms the watchdog with the driver's default timeout); the device or an errno. */
export function openWatchdogDevice(path = WATCHDOG_DEVICE): WatchdogDevice | number {
  const c = libc();
  const fd = c.open(cstr(path), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno();
  const one = (b: number): number => (c.write(fd, new Uint8Array([b]), 1) === 1 ? 0 : errno());
  let closed = false;
  return {
    setTimeout(seconds) {
      const v = new Int32Array([seconds]);
      return c.ioctl(fd, WDIOC_SETTIMEOUT, v) < 0 ? -errno() : v[0]!;
    },
    ping: () => (closed ? 9 /* EBADF */ : one(PING_BYTE)),
    magicClose() {
      if (closed) return 0;
      const w = one(MAGIC_BYTE);
      closed = true;
      const r = c.close(fd) < 0 ? errno() : 0;
      return w !== 0 ? w : r;
    },
  };
}
