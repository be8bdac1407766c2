/**
 * kexec_file_load(2) through bun:ffi over glibc (no kexec-tools needed), then reboot(2)
 * (reboot.ts) with LINUX_REBOOT_CMD_KEXEC.
 * kexec_file_load has no glibc wrapper: it is called by number through syscall(3)
 * (320 on x86-64, arch/x86/entry/syscalls/syscall_64.tbl). Its arguments: the kernel's
 * fd, the initrd's fd (-1 with KEXEC_FILE_NO_INITRAMFS), the cmdline's length
 * *including* its NUL, the cmdline, flags (kernel/kexec_file.c checks
 * cmdline_ptr[cmdline_len - 1] == '\0'). `kexecArgs` builds them (pure);
 * `linuxKexec` makes the calls. Each call returns 0 or an errno.
 */
import { ptr } from "bun:ffi";
import { openRegularInRoot, RootFileError } from "../fs/root-file.ts";
import { libc } from "./libc.ts";
import { reboot } from "./reboot-syscall.ts";
import { drainConsole } from "./syscalls.ts";

export const SYS_kexec_file_load = 320; // x86-64
/** <linux/kexec.h> */
export const KEXEC_FILE_UNLOAD = 0x1;
export const KEXEC_FILE_ON_CRASH = 0x2;
export const KEXEC_FILE_NO_INITRAMFS = 0x4;

export interface KexecArgs {
  readonly kernelFd: number;
  readonly initrdFd: number;
  /** Bytes of `cmdline`, NUL included. */
  readonly cmdlineLen: number;
  readonly cmdline: Uint8Array;
  readonly flags: number;
}

/** The arguments of kexec_file_load for a kernel fd, an optional initrd fd and a cmdline. */
export function kexecArgs(kernelFd: number, initrdFd: number | undefined, cmdline: string): KexecArgs {
  if (cmdline.includes("\0")) throw new Error("kexec: the cmdline contains a NUL byte");
  const bytes = new TextEncoder().encode(cmdline + "\0");
  return {
    kernelFd,
    initrdFd: initrdFd ?? -1,
    cmdlineLen: bytes.byteLength,
    cmdline: bytes,
    flags: initrdFd === undefined ? KEXEC_FILE_NO_INITRAMFS : 0,
  };
}

/** The system calls behind a kexec, as an interface so tests inject a recorder. */
export interface KexecSys {
  /**
   * A file of the installed system (`path` inside `root`), read-only: resolved inside the
   * root, O_NONBLOCK (a FIFO cannot block the agent), a regular file (fstat); the fd, or why not.
   */
  openRead(root: string, path: string): { readonly fd: number } | { readonly error: string };
  close(fd: number): void;
  kexecFileLoad(args: KexecArgs): number;
  reboot(cmd: number): number;
  sync(): void;
  /** syscalls.ts drainConsole: the console has sent the last line. */
  drainConsole(): void;
}

const errno = (): number => libc().errno();

export const linuxKexec: KexecSys = {
  openRead(root, path) {
    try {
      return { fd: openRegularInRoot(root, path) };
    } catch (e) {
      return { error: `open ${path}: ${e instanceof RootFileError && e.errno !== 0 ? e.code : (e as Error).message}` };
    }
  },
  close(fd) {
    libc().close(fd);
  },
  kexecFileLoad(a) {
    const rc = libc().syscall(SYS_kexec_file_load, a.kernelFd, a.initrdFd, a.cmdlineLen, ptr(a.cmdline), a.flags, 0);
    return rc < 0 ? errno() : 0;
  },
  reboot,
  sync() {
    libc().sync();
  },
  drainConsole: () => drainConsole(),
};
