/**
 * Setting the machine's clocks through bun:ffi over glibc: clock_settime(2) for the
 * system clock and the RTC_SET_TIME ioctl for the hardware clock (/dev/rtc0, kept in
 * UTC as Linux servers do). Opened on first use, so importing this file costs nothing
 * in tests. Every call returns 0 or an errno; tests never call these (the setter is
 * injected), QEMU runs exercise them.
 */
import { cstr, libc, O_CLOEXEC, O_RDONLY } from "./libc.ts";

const errno = (): number => libc().errno();

export const CLOCK_REALTIME = 0;
/** _IOW('p', 0x0a, struct rtc_time): struct rtc_time is 9 ints (36 bytes). */
export const RTC_SET_TIME = 0x4024700a;
export const RTC_DEVICE = "/dev/rtc0";

/** struct timespec { time_t tv_sec; long tv_nsec; } for Unix ms. */
export function timespec(unixMs: number): Uint8Array {
  const b = new Uint8Array(16);
  const dv = new DataView(b.buffer);
  const sec = Math.floor(unixMs / 1000);
  dv.setBigInt64(0, BigInt(sec), true);
  dv.setBigInt64(8, BigInt(Math.round((unixMs - sec * 1000) * 1e6)), true);
  return b;
}

/** struct rtc_time (tm_sec .. tm_isdst) for Unix ms, in UTC. */
export function rtcTime(unixMs: number): Uint8Array {
  const d = new Date(unixMs);
  const yday = Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000);
  const fields = [d.getUTCSeconds(), d.getUTCMinutes(), d.getUTCHours(), d.getUTCDate(), d.getUTCMonth(), d.getUTCFullYear() - 1900, d.getUTCDay(), yday, 0];
  const b = new Uint8Array(36);
  const dv = new DataView(b.buffer);
  fields.forEach((v, i) => dv.setInt32(i * 4, v, true));
  return b;
}

/** Sets CLOCK_REALTIME; 0 or an errno (EPERM without CAP_SYS_TIME). */
export function setSystemClock(unixMs: number): number {
  return libc().clock_settime(CLOCK_REALTIME, timespec(unixMs)) < 0 ? errno() : 0;
}

/** Writes the hardware clock (UTC); 0 or an errno (ENOENT when there is no RTC device). Opened read-only, as hwclock does: the ioctl needs no write access. */
export function setRtc(unixMs: number, device = RTC_DEVICE): number {
  const c = libc();
  const fd = c.open(cstr(device), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno();
  try {
    return c.ioctl(fd, RTC_SET_TIME, rtcTime(unixMs)) < 0 ? errno() : 0;
  } finally {
    c.close(fd);
  }
}
