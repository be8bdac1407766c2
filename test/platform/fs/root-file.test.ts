/**
 * Files of the target root opened the safe way (issue 29): links that point out of the
 * root, FIFOs and device nodes planted by an image. Runs as root (mknod).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dirInRoot, openRegularInRoot, readInRoot, RootFileError, writeInRoot } from "../../../src/platform/fs/root-file.ts";

let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "root-file-"));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const fifo = (p: string) => execFileSync("mkfifo", [p]);
const charDev = (p: string) => execFileSync("mknod", ["-m", "0666", p, "c", "1", "3"]); // a copy of /dev/null

describe("writeInRoot", () => {
  test("an absolute link out of the root: refused while its target is missing in the root, inside the root once it is there", () => {
    mkdirSync(join(root, "etc"));
    symlinkSync(outside, join(root, "etc/metal"));
    expect(() => writeInRoot(root, "/etc/metal/machine-details.yaml", "password: x\n", 0o600)).toThrow(/exists but is no directory of the target/);
    expect(existsSync(join(outside, "machine-details.yaml"))).toBe(false);
    mkdirSync(join(root, outside), { recursive: true });
    writeInRoot(root, "/etc/metal/machine-details.yaml", "password: x\n", 0o600);
    expect(existsSync(join(outside, "machine-details.yaml"))).toBe(false);
    expect(readFileSync(join(root, outside, "machine-details.yaml"), "utf8")).toBe("password: x\n");
  });

  test("a relative ../.. link out of the root: it stops at the root", () => {
    symlinkSync("../../../../../..", join(root, "etc"));
    writeInRoot(root, "/etc/fstab", "x\n", 0o644);
    expect(readFileSync(join(root, "fstab"), "utf8")).toBe("x\n");
  });

  test("a link at the name itself is replaced, not written through", () => {
    mkdirSync(join(root, "etc"));
    writeFileSync(join(outside, "victim"), "keep");
    symlinkSync(join(outside, "victim"), join(root, "etc/fstab"));
    writeInRoot(root, "/etc/fstab", "new\n", 0o644);
    expect(readFileSync(join(outside, "victim"), "utf8")).toBe("keep");
    expect(lstatSync(join(root, "etc/fstab")).isFile()).toBe(true);
  });

  test("a FIFO or a character device at the name is replaced without blocking or changing the node", () => {
    mkdirSync(join(root, "etc"));
    fifo(join(root, "etc/fstab"));
    charDev(join(root, "etc/boot"));
    const t0 = performance.now();
    writeInRoot(root, "/etc/fstab", "a\n", 0o644);
    writeInRoot(root, "/etc/boot", "b\n", 0o600);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(lstatSync(join(root, "etc/fstab")).isFile()).toBe(true);
    expect(lstatSync(join(root, "etc/boot")).mode & 0o7777).toBe(0o600);
  });

  test("missing directories are made inside the root; the temp file is gone after", () => {
    writeInRoot(root, "/etc/metal/disk.json", "{}", 0o600);
    expect(lstatSync(join(root, "etc/metal")).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(root, "etc/metal/disk.json")).mode & 0o777).toBe(0o600);
    expect(
      execFileSync("ls", ["-A", join(root, "etc/metal")])
        .toString()
        .trim(),
    ).toBe("disk.json");
  });
});

describe("reading and opening", () => {
  test("a FIFO is refused at once, naming what it is", () => {
    mkdirSync(join(root, "etc/metal"), { recursive: true });
    fifo(join(root, "etc/metal/boot-info.yaml"));
    const t0 = performance.now();
    expect(() => readInRoot(root, "/etc/metal/boot-info.yaml", 1024)).toThrow(/expected a regular file, found a FIFO/);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  test("a device node is refused", () => {
    charDev(join(root, "vmlinuz"));
    expect(() => openRegularInRoot(root, "/vmlinuz")).toThrow(/found a character device/);
  });

  test("a link out of the root is read inside the root; followLast false refuses a last link", () => {
    writeFileSync(join(outside, "secret"), "token");
    mkdirSync(join(root, "boot"));
    symlinkSync(join(outside, "secret"), join(root, "boot/vmlinuz"));
    expect(() => readInRoot(root, "/boot/vmlinuz", 1024)).toThrow(RootFileError);
    mkdirSync(join(root, outside), { recursive: true });
    writeFileSync(join(root, outside, "secret"), "inside");
    expect(new TextDecoder().decode(readInRoot(root, "/boot/vmlinuz", 1024))).toBe("inside");
    expect(() => readInRoot(root, "/boot/vmlinuz", 1024, { followLast: false })).toThrow(/is a symbolic link \(not followed/);
  });

  test("kernel links as Debian ships them resolve inside the root: /vmlinuz -> boot/vmlinuz-6.1, /boot/vmlinuz -> /boot/vmlinuz-6.1", () => {
    mkdirSync(join(root, "boot"));
    writeFileSync(join(root, "boot/vmlinuz-6.1.0-28-amd64"), "kernel");
    symlinkSync("boot/vmlinuz-6.1.0-28-amd64", join(root, "vmlinuz"));
    symlinkSync("/boot/vmlinuz-6.1.0-28-amd64", join(root, "boot/vmlinuz"));
    for (const p of ["/vmlinuz", "/boot/vmlinuz", "/boot/../vmlinuz", "/../../boot/vmlinuz"]) expect(new TextDecoder().decode(readInRoot(root, p, 100))).toBe("kernel");
  });

  test("a file past the cap ends in TooLargeError", () => {
    writeFileSync(join(root, "big"), "x".repeat(2000));
    expect(() => readInRoot(root, "/big", 1000)).toThrow(/larger than the cap/);
  });

  test("dirInRoot: a link out as a mount target resolves inside the root", () => {
    symlinkSync(outside, join(root, "dev"));
    expect(() => dirInRoot(root, "/dev", { mode: 0o755 })).toThrow(/\/dev exists but is no directory/);
    mkdirSync(join(root, outside), { recursive: true });
    const d = dirInRoot(root, "/dev", { mode: 0o755 });
    closeSync(d.fd);
    expect(d.real).toBe(join(root, outside));
    expect(existsSync(join(root, outside))).toBe(true);
  });

  test("dirInRoot: a FIFO as the directory is refused", () => {
    fifo(join(root, "proc"));
    expect(() => dirInRoot(root, "/proc", { mode: 0o755 })).toThrow(/ENOTDIR/);
  });
});
