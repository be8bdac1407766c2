import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseToolsList, toolItems } from "../../initramfs/tools.ts";

describe("initramfs tools list", () => {
  test("the repo's list names every tool the disk code runs", () => {
    const paths = parseToolsList(readFileSync(new URL("../../initramfs/tools.list", import.meta.url), "utf8"));
    const names = paths.map((p) => p.split("/").at(-1));
    for (const t of ["sgdisk", "mdadm", "lvm", "dmsetup", "mkfs.ext3", "mkfs.ext4", "mkfs.vfat", "mkswap", "wipefs", "blkdiscard", "nvme", "blkid", "blockdev"]) expect(names).toContain(t);
  });

  test("comments and blank lines are skipped; a relative path names its line", () => {
    expect(parseToolsList("# c\n\n/usr/sbin/x # why\n")).toEqual(["/usr/sbin/x"]);
    expect(() => parseToolsList("/ok\nsbin/bad\n")).toThrow(/line 2: "sbin\/bad": expected an absolute host path/);
  });

  test("binaries bring the libraries ldd reports (once, not those already in the image); symlinks stay symlinks; data files are copied", () => {
    const d = mkdtempSync(join(tmpdir(), "mh-tools-"));
    try {
      const elf = join(d, "tool");
      writeFileSync(elf, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), { mode: 0o755 });
      symlinkSync("tool", join(d, "alias"));
      writeFileSync(join(d, "tool.conf"), "x=1\n");
      const libc = "/lib/x86_64-linux-gnu/libc.so.6";
      const ldd = () => `\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => ${libc} (0x00007f00)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f01)\n`;
      const items = toolItems([elf, join(d, "alias"), join(d, "tool.conf"), elf], new Set(["lib64/ld-linux-x86-64.so.2"]), ldd);
      expect(items.map((i) => [i.kind, i.path])).toEqual([
        ["file", elf.slice(1)],
        ["file", libc.slice(1)],
        ["symlink", join(d, "alias").slice(1)],
        ["file", join(d, "tool.conf").slice(1)],
      ]);
      expect(items[0]).toMatchObject({ mode: 0o755, group: "tools" });
      expect(items[2]).toMatchObject({ target: "tool" });
      expect(() => toolItems([join(d, "missing")], new Set(), ldd)).toThrow(/does not exist on the build host/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
