import { expect, test } from "bun:test";
import { mountAt, parseMountInfo } from "../../../src/platform/fs/mountinfo.ts";

// Lines as the kernel writes them: optional fields (shared:N, master:N) before "-", a space in a mount point as \040.
const TEXT = [
  "22 1 254:2 / / rw,relatime shared:1 - ext4 /dev/vda2 rw",
  "41 22 9:127 / /rootfs/boot/efi rw,relatime shared:5 master:2 - vfat /dev/md/esp rw,fmask=0022",
  "42 22 0:30 / /sys/firmware/efi/efivars rw,nosuid,nodev,noexec,relatime - efivarfs efivarfs rw",
  "43 22 7:0 / /mnt/with\\040space rw - squashfs /dev/loop0 ro",
  "44 41 254:5 / /rootfs/boot/efi rw - vfat /dev/vdb1 rw",
  "broken line",
  "",
].join("\n");

test("each line's device number, mount point, filesystem type and source, whatever the optional fields", () => {
  expect(parseMountInfo(TEXT)).toEqual([
    { major: 254, minor: 2, mountPoint: "/", fstype: "ext4", source: "/dev/vda2" },
    { major: 9, minor: 127, mountPoint: "/rootfs/boot/efi", fstype: "vfat", source: "/dev/md/esp" },
    { major: 0, minor: 30, mountPoint: "/sys/firmware/efi/efivars", fstype: "efivarfs", source: "efivarfs" },
    { major: 7, minor: 0, mountPoint: "/mnt/with space", fstype: "squashfs", source: "/dev/loop0" },
    { major: 254, minor: 5, mountPoint: "/rootfs/boot/efi", fstype: "vfat", source: "/dev/vdb1" },
  ]);
});

test("mountAt: the last mount at a path (an overmount hides the earlier); none: undefined", () => {
  expect(mountAt(TEXT, "/rootfs/boot/efi")?.source).toBe("/dev/vdb1");
  expect(mountAt(TEXT, "/rootfs")).toBeUndefined();
});
