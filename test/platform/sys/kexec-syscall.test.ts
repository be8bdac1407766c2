import { describe, expect, test } from "bun:test";
import { KEXEC_FILE_NO_INITRAMFS, SYS_kexec_file_load, kexecArgs } from "../../../src/platform/sys/kexec-syscall.ts";

describe("kexec_file_load arguments", () => {
  test("the cmdline carries its NUL and the length counts it", () => {
    const a = kexecArgs(5, 6, "console=ttyS0 root=UUID=abc");
    expect(a.cmdlineLen).toBe("console=ttyS0 root=UUID=abc".length + 1);
    expect(a.cmdline[a.cmdline.length - 1]).toBe(0);
    expect(new TextDecoder().decode(a.cmdline.subarray(0, -1))).toBe("console=ttyS0 root=UUID=abc");
    expect([a.kernelFd, a.initrdFd, a.flags]).toEqual([5, 6, 0]);
  });

  test("without an initrd the fd is -1 and KEXEC_FILE_NO_INITRAMFS is set", () => {
    const a = kexecArgs(5, undefined, "");
    expect(a.initrdFd).toBe(-1);
    expect(a.flags).toBe(KEXEC_FILE_NO_INITRAMFS);
    expect(a.cmdlineLen).toBe(1);
  });

  test("a NUL inside the cmdline is refused (the kernel would cut it there)", () => {
    expect(() => kexecArgs(5, undefined, "a\0b")).toThrow("NUL");
  });

  test("x86-64 syscall number", () => {
    expect(SYS_kexec_file_load).toBe(320);
  });
});
