/**
 * reboot(2), bound once over the one libc binding (libc.ts), and its commands under the
 * kernel's names (<linux/reboot.h>, include/uapi/linux/reboot.h; glibc's RB_* are the
 * same numbers). Values above 2^31 are given as the signed 32-bit int the binding
 * passes. PID 1 (init/linux-system.ts: power off, halt, restart, Ctrl-Alt-Del off) and
 * the hand-off (kexec.ts: LINUX_REBOOT_CMD_KEXEC, the planned reboot) call this one.
 */
import { libc, result } from "./libc.ts";

export const LINUX_REBOOT_CMD_RESTART = 0x01234567;
export const LINUX_REBOOT_CMD_HALT = 0xcdef0123 | 0;
export const LINUX_REBOOT_CMD_CAD_OFF = 0x00000000;
export const LINUX_REBOOT_CMD_POWER_OFF = 0x4321fedc;
export const LINUX_REBOOT_CMD_KEXEC = 0x45584543;

/** reboot(2) with one of the commands above: returns 0 (or does not return) or the errno. */
export function reboot(cmd: number): number {
  return result(libc().reboot(cmd));
}
