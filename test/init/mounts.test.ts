import { describe, expect, test } from "bun:test";
import { parseMounts } from "../../src/platform/fs/mount-table.ts";
import { MOUNT_PLAN, pendingMounts } from "../../src/init/mounts.ts";

describe("mount plan", () => {
  test("proc, sys, devtmpfs, devpts and tmpfs on /run and /tmp, in that order", () => {
    expect(MOUNT_PLAN.map((m) => `${m.fstype}:${m.target}`)).toEqual(["proc:/proc", "sysfs:/sys", "devtmpfs:/dev", "devpts:/dev/pts", "tmpfs:/run", "tmpfs:/tmp"]);
    expect(MOUNT_PLAN.find((m) => m.target === "/tmp")?.data).toBe("mode=1777");
  });

  test("what the /init shim already mounted is not mounted again", () => {
    const mounted = parseMounts("rootfs / rootfs rw 0 0\nproc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n");
    expect(pendingMounts(MOUNT_PLAN, mounted).map((m) => m.target)).toEqual(["/sys", "/dev", "/dev/pts", "/run", "/tmp"]);
  });

  test("another filesystem type at the same place does not count as mounted", () => {
    expect(pendingMounts(MOUNT_PLAN, [{ target: "/run", fstype: "ramfs" }]).map((m) => m.target)).toContain("/run");
  });

  test("octal escapes in mount paths are decoded", () => {
    expect(parseMounts("none /mnt/a\\040b tmpfs rw 0 0\n")).toEqual([{ target: "/mnt/a b", fstype: "tmpfs" }]);
  });
});
