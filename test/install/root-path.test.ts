/**
 * Paths of the installed system resolved inside its root (src/install/root-path.ts), on
 * a real directory tree: absolute links stay inside the root, relative ones resolve from
 * their directory, ".." stops at the root, a missing component ends the walk, a loop is
 * bounded.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveInRoot } from "../../src/install/root-path.ts";

const root = mkdtempSync(join(tmpdir(), "mh-root-path-"));
mkdirSync(join(root, "boot"));
writeFileSync(join(root, "boot/vmlinuz-6.1.0-28-amd64"), "kernel");
writeFileSync(join(root, "boot/initrd.img-6.1.0-28-amd64"), "initrd");
// As some distributions ship them: an absolute link, a relative link, a link to a linked directory.
symlinkSync("/boot/vmlinuz-6.1.0-28-amd64", join(root, "boot/vmlinuz"));
symlinkSync("boot/initrd.img-6.1.0-28-amd64", join(root, "initrd.img"));
symlinkSync("/boot", join(root, "kernels"));
symlinkSync("vmlinuz-6.1.0-28-amd64", join(root, "boot/current"));
symlinkSync("../../../../../etc/hostname", join(root, "boot/escape"));
symlinkSync("loop-b", join(root, "loop-a"));
symlinkSync("loop-a", join(root, "loop-b"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("resolveInRoot", () => {
  test("an absolute link is resolved inside the root, not on the host", () => {
    expect(resolveInRoot(root, "/boot/vmlinuz")).toBe(`${root}/boot/vmlinuz-6.1.0-28-amd64`);
  });

  test("a relative link from its own directory; a linked directory on the way", () => {
    expect(resolveInRoot(root, "/initrd.img")).toBe(`${root}/boot/initrd.img-6.1.0-28-amd64`);
    expect(resolveInRoot(root, "/boot/current")).toBe(`${root}/boot/vmlinuz-6.1.0-28-amd64`);
    expect(resolveInRoot(`${root}/`, "/kernels/vmlinuz")).toBe(`${root}/boot/vmlinuz-6.1.0-28-amd64`);
  });

  test("'..' in a link never climbs above the root", () => {
    expect(resolveInRoot(root, "/boot/escape")).toBe(`${root}/etc/hostname`);
  });

  test("a missing component ends the walk with the rest as given; a plain file is itself", () => {
    expect(resolveInRoot(root, "/boot/nothing/vmlinuz")).toBe(`${root}/boot/nothing/vmlinuz`);
    expect(resolveInRoot(root, "/boot/vmlinuz-6.1.0-28-amd64")).toBe(`${root}/boot/vmlinuz-6.1.0-28-amd64`);
  });

  test("a link loop is bounded: the path comes back unresolved (opening it fails with ELOOP)", () => {
    expect(resolveInRoot(root, "/loop-a")).toBe(`${root}/loop-a`);
  });
});
