import { describe, expect, test } from "bun:test";
import { LINUX_REBOOT_CMD_CAD_OFF, LINUX_REBOOT_CMD_HALT, LINUX_REBOOT_CMD_KEXEC, LINUX_REBOOT_CMD_POWER_OFF, LINUX_REBOOT_CMD_RESTART } from "../../src/sys/reboot.ts";

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
});
