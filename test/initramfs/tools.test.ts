import { describe, expect, test } from "bun:test";
import { parseToolList, ToolListError } from "../../initramfs/lib/tools.ts";

describe("--tools list", () => {
  test("absolute paths, comments and blank lines; duplicates once", () => {
    expect(parseToolList("# disks\n/usr/sbin/sgdisk\n\n/sbin/mdadm  # raid\n/usr/sbin/sgdisk\n/usr/sbin/mkfs.ext4\n", "t")).toEqual([
      "/usr/sbin/sgdisk",
      "/sbin/mdadm",
      "/usr/sbin/mkfs.ext4",
    ]);
  });

  test("a relative path, .. or odd characters name the line", () => {
    expect(() => parseToolList("/sbin/mdadm\nsgdisk\n", "tools.list")).toThrow(new ToolListError('tools.list:2: "sgdisk": expected an absolute host path like /usr/sbin/sgdisk'));
    expect(() => parseToolList("/usr/../etc/shadow\n", "t")).toThrow(ToolListError);
    expect(() => parseToolList("/bin/sh; rm -rf /\n", "t")).toThrow(ToolListError);
  });
});
