import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parseToolList } from "../../../initramfs/lib/tools.ts";

describe("initramfs tools list", () => {
  test("the repo's list names every tool the disk code runs", () => {
    const paths = parseToolList(readFileSync(new URL("../../../initramfs/tools.list", import.meta.url), "utf8"), "initramfs/tools.list");
    const names = paths.map((p) => p.split("/").at(-1));
    for (const t of [
      "sgdisk",
      "mdadm",
      "lvm",
      "dmsetup",
      "mkfs.ext3",
      "mkfs.ext4",
      "mkfs.vfat",
      "mkswap",
      "wipefs",
      "blkdiscard",
      "nvme",
      "blkid",
      "blockdev",
      "hdparm",
      "setsid",
      "sg_opcodes",
      "sg_sanitize",
      "sg_format",
      "sg_requests",
    ])
      expect(names).toContain(t);
  });
});
