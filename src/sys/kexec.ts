/**
 * kexec_file_load(2) and reboot(2) through bun:ffi over glibc (no kexec-tools needed).
 * kexec_file_load has no glibc wrapper: it is called by number through syscall(3)
 * (320 on x86-64, arch/x86/entry/syscalls/syscall_64.tbl). Its arguments: the kernel's
 * fd, the initrd's fd (-1 with KEXEC_FILE_NO_INITRAMFS), the cmdline's length
 * *including* its NUL, the cmdline, flags (kernel/kexec_file.c checks
 * cmdline_ptr[cmdline_len - 1] == '\0'). `kexecArgs` builds them (pure);
 * `linuxKexec` makes the calls. Each call returns 0 or an errno.
 */
import { dlopen, read, type Pointer } from "bun:ffi";

export const SYS_kexec_file_load = 320; // x86-64
/** <linux/kexec.h> */
export const KEXEC_FILE_UNLOAD = 0x1;
export const KEXEC_FILE_ON_CRASH = 0x2;
export const KEXEC_FILE_NO_INITRAMFS = 0x4;
/** <linux/reboot.h> */
export const LINUX_REBOOT_CMD_KEXEC = 0x45584543;
export const LINUX_REBOOT_CMD_RESTART = 0x01234567;

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
  /** open(2) read-only with O_CLOEXEC: the fd, or -errno. */
  openRead(path: string): number;
  close(fd: number): void;
  kexecFileLoad(args: KexecArgs): number;
  reboot(cmd: number): number;
  sync(): void;
}

const O_RDONLY = 0;
const O_CLOEXEC = 0o2000000;

type Lib = ReturnType<typeof open>;
let lib: Lib | undefined;

function open() {
  return dlopen("libc.so.6", {
    // long syscall(long number, ...): integer arguments only, so the fixed signature is safe on x86-64.
    syscall: { args: ["i64", "i64", "i64", "u64", "ptr", "u64"], returns: "i32" },
    open: { args: ["ptr", "i32"], returns: "i32" },
    close: { args: ["i32"], returns: "i32" },
    reboot: { args: ["i32"], returns: "i32" },
    sync: { args: [], returns: "void" },
    __errno_location: { args: [], returns: "ptr" },
  }).symbols;
}

function libc(): Lib {
  lib ??= open();
  return lib;
}

const errno = (): number => read.i32(libc().__errno_location() as Pointer, 0);

export const linuxKexec: KexecSys = {
  openRead(path) {
    const fd = libc().open(Buffer.from(path + "\0"), O_RDONLY | O_CLOEXEC);
    return fd < 0 ? -errno() : fd;
  },
  close(fd) {
    libc().close(fd);
  },
  kexecFileLoad(a) {
    const rc = libc().syscall(SYS_kexec_file_load, a.kernelFd, a.initrdFd, a.cmdlineLen, a.cmdline, a.flags);
    return rc < 0 ? errno() : 0;
  },
  reboot(cmd) {
    return libc().reboot(cmd) < 0 ? errno() : 0;
  },
  sync() {
    libc().sync();
  },
};
