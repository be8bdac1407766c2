import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  LINUX_REBOOT_CMD_CAD_OFF,
  LINUX_REBOOT_CMD_HALT,
  LINUX_REBOOT_CMD_KEXEC,
  LINUX_REBOOT_CMD_POWER_OFF,
  LINUX_REBOOT_CMD_RESTART,
  reboot,
} from "../../../src/platform/sys/reboot-syscall.ts";

describe("reboot(2) commands", () => {
  test("the values of <linux/reboot.h>, as the signed 32-bit int reboot(2) takes", () => {
    // include/uapi/linux/reboot.h: RESTART 0x01234567, HALT 0xCDEF0123, CAD_OFF 0, POWER_OFF 0x4321FEDC, KEXEC 0x45584543.
    const int32 = (v: number): number => v | 0;
    expect([LINUX_REBOOT_CMD_RESTART, LINUX_REBOOT_CMD_HALT, LINUX_REBOOT_CMD_CAD_OFF, LINUX_REBOOT_CMD_POWER_OFF, LINUX_REBOOT_CMD_KEXEC]).toEqual([
      int32(0x01234567),
      int32(0xcdef0123),
      0,
      int32(0x4321fedc),
      int32(0x45584543),
    ]);
    expect(LINUX_REBOOT_CMD_HALT).toBe(-839974621);
  });

  test("the binding reaches the kernel and answers its errno: a command no kernel knows changes nothing", () => {
    // kernel/reboot.c: without CAP_SYS_BOOT in the user namespace owning our PID namespace
    // EPERM; with it an unknown cmd is EINVAL (the switch's default, no side effect).
    const got = reboot(0x0badc0de);
    const initUserNs = readFileSync("/proc/self/uid_map", "utf8").trim().split(/\s+/).join(" ") === "0 0 4294967295";
    if (initUserNs) {
      const capEff = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))![1]}`);
      expect(got).toBe((capEff >> 22n) & 1n ? 22 : 1);
    } else {
      // In a user namespace the capability set says nothing about the PID namespace's owner: one of the two.
      expect([1, 22]).toContain(got);
    }
  });
});
