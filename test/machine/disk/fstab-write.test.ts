/** writeFstab through the real DiskIo on temp roots an image could have left (issue 29). Runs as root (mknod). */
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemDiskIo } from "../../../src/machine/disk/io.ts";
import { writeFstab, type AppliedLayout } from "../../../src/machine/disk/layout-run.ts";

const work = mkdtempSync(join(tmpdir(), "mh-fstab-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const applied = (root: string): AppliedLayout => ({ targetRoot: root, filesystems: [], rootUuid: "u", fstab: "UUID=u / ext4 defaults 0 1\n", mounts: [], notes: [] });

describe("writeFstab on a hostile image", () => {
  test("/etc/fstab as a link out of the target: the link is replaced, its target untouched", async () => {
    const root = mkdtempSync(join(work, "r-"));
    const victim = join(work, "victim");
    writeFileSync(victim, "keep");
    mkdirSync(join(root, "etc"));
    symlinkSync(victim, join(root, "etc/fstab"));
    await writeFstab(applied(root), systemDiskIo());
    expect(readFileSync(victim, "utf8")).toBe("keep");
    expect(readFileSync(join(root, "etc/fstab"), "utf8")).toContain("UUID=u /");
  });

  test("/etc/fstab as a character device or FIFO: replaced (no write into the device, its mode unchanged), no hang", async () => {
    for (const make of [
      ["mknod", "-m", "0666", "X", "c", "1", "3"],
      ["mkfifo", "X"],
    ]) {
      const root = mkdtempSync(join(work, "r-"));
      mkdirSync(join(root, "etc"));
      const dev = join(work, `dev-${make[0]}-${Math.random()}`);
      execFileSync(
        make[0]!,
        make.slice(1).map((a) => (a === "X" ? dev : a)),
      );
      execFileSync("ln", [dev, join(root, "etc/fstab")]); // the same inode inside the image
      const mode = statSync(dev).mode;
      await writeFstab(applied(root), systemDiskIo());
      expect(lstatSync(join(root, "etc/fstab")).isFile()).toBe(true);
      expect(statSync(dev).mode).toBe(mode);
    }
  });

  test("/etc as a link out: nothing is written outside", async () => {
    const root = mkdtempSync(join(work, "r-"));
    const out = mkdtempSync(join(work, "out-"));
    symlinkSync(out, join(root, "etc"));
    await expect(writeFstab(applied(root), systemDiskIo())).rejects.toThrow(/no directory of the target/);
    expect(existsSync(join(out, "fstab"))).toBe(false);
  });
});
