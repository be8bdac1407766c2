import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRootFs, rootFsOf } from "../../../src/platform/fs/initramfs-root.ts";
import { rootFsType } from "../../../src/platform/fs/mount-table.ts";

describe("what / is", () => {
  test("rootFsType reads the filesystem mounted at / (the last mount wins)", () => {
    expect(rootFsType("rootfs / rootfs rw 0 0\nproc /proc proc rw 0 0\n")).toBe("rootfs");
    expect(rootFsType("none / rootfs rw 0 0\ntmpfs / tmpfs rw 0 0\n")).toBe("tmpfs");
    expect(rootFsType("/dev/vda / ext4 rw,relatime 0 0\n")).toBe("ext4");
    expect(rootFsType("proc /proc proc rw 0 0\n")).toBeUndefined();
  });

  test("rootfs, tmpfs and ramfs at / are the initramfs; a disk filesystem, no / or no mount table are not", () => {
    expect(rootFsOf("rootfs / rootfs rw 0 0\n")).toEqual({ initramfs: true, type: "rootfs" });
    expect(rootFsOf("none / ramfs rw 0 0\n")).toEqual({ initramfs: true, type: "ramfs" });
    expect(rootFsOf("rootfs / rootfs rw 0 0\n/dev/vda / ext4 rw 0 0\n")).toEqual({ initramfs: false, type: "ext4" });
    expect(rootFsOf("proc /proc proc rw 0 0\n")).toEqual({ initramfs: false, type: undefined });
    expect(rootFsOf(undefined)).toEqual({ initramfs: false, type: undefined });
  });

  test("readRootFs reads a mount table file, and an unreadable one is not the initramfs", () => {
    const dir = mkdtempSync(join(tmpdir(), "mh-mounts-"));
    writeFileSync(join(dir, "mounts"), "tmpfs / tmpfs rw 0 0\n");
    expect(readRootFs(join(dir, "mounts"))).toEqual({ initramfs: true, type: "tmpfs" });
    expect(readRootFs(join(dir, "absent"))).toEqual({ initramfs: false, type: undefined });
  });
});
