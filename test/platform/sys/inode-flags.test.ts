/**
 * FS_IOC_GETFLAGS / FS_IOC_SETFLAGS through the libc binding on a file of the test's own
 * (in a temp dir on the host's file system): the immutable flag (what efivarfs sets on
 * every variable) set, a write refused, cleared, a write accepted. Setting it needs
 * CAP_LINUX_IMMUTABLE (root) and a file system that has the flag (ext4, xfs, btrfs, tmpfs).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FS_IMMUTABLE_FL, linuxInodeFlags } from "../../../src/platform/sys/inode-flags.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-inode-flags-"));
const file = join(dir, "var");
writeFileSync(file, "x");
const before = linuxInodeFlags.get(file);
const root = process.getuid?.() === 0;
const why = !root ? "needs root (CAP_LINUX_IMMUTABLE)" : before < 0 ? `the temp dir's file system has no inode flags (errno ${-before})` : "";

afterAll(() => {
  const f = linuxInodeFlags.get(file);
  if (f >= 0 && f & FS_IMMUTABLE_FL) linuxInodeFlags.set(file, f & ~FS_IMMUTABLE_FL);
  rmSync(dir, { recursive: true, force: true });
});

if (why && process.env.CI === "true") {
  test("inode flags prerequisites", () => {
    throw new Error(`inode flag test cannot run under CI: ${why}`);
  });
}

test("a missing file is -ENOENT", () => {
  expect(linuxInodeFlags.get(join(dir, "missing"))).toBe(-2);
});

test.skipIf(why !== "")(`immutable set refuses a write, cleared accepts it${why ? ` (skipped: ${why})` : ""}`, () => {
  expect(before & FS_IMMUTABLE_FL).toBe(0);
  expect(linuxInodeFlags.set(file, before | FS_IMMUTABLE_FL)).toBe(0);
  expect(linuxInodeFlags.get(file) & FS_IMMUTABLE_FL).toBe(FS_IMMUTABLE_FL);
  expect(() => writeFileSync(file, "y")).toThrow(/EPERM/);
  expect(linuxInodeFlags.set(file, before)).toBe(0);
  expect(linuxInodeFlags.get(file)).toBe(before);
  writeFileSync(file, "y");
});
