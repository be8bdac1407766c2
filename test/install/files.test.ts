/** The file-level steps on temp directories (no root needed): contract writing, target cleaning (the installer choice: installer-choice.test.ts). */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentError } from "../../src/platform/errors.ts";
import { cleanTarget } from "../../src/install/clean.ts";
import { writeContract } from "../../src/install/write-contract.ts";
import { LVMLOCAL_PATH, lvmLocalConf } from "../../src/install/lvmlocal.ts";
import { createLogger, silentLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";

const work = mkdtempSync(join(tmpdir(), "mh-install-files-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const dir = () => mkdtempSync(join(work, "t-"));

describe("contract writing", () => {
  const files = { files: [{ path: "/etc/metal/machine-details.yaml", content: '{"password": "x"}\n' }] };

  test("creates /etc/metal 0755 and writes the file 0600", async () => {
    const root = dir();
    await writeContract(root, files, silentLogger());
    expect(statSync(join(root, "etc/metal")).mode & 0o777).toBe(0o755);
    expect(statSync(join(root, "etc/metal/machine-details.yaml")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(root, "etc/metal/machine-details.yaml"), "utf8")).toBe('{"password": "x"}\n');
  });

  test("an image whose /etc/metal points outside the target is refused and nothing is written there", async () => {
    const root = dir();
    const outside = dir();
    mkdirSync(join(root, "etc"));
    symlinkSync(outside, join(root, "etc/metal"));
    const e = await writeContract(root, files, silentLogger()).catch((x: unknown) => x);
    expect((e as AgentError).code).toBe("installer");
    expect((e as AgentError).message).toContain("exists but is no directory of the target");
    expect(existsSync(join(outside, "machine-details.yaml"))).toBe(false);
  });

  test("an image whose /etc points outside: etc/metal is not created there (it was created before the check on main)", async () => {
    const root = dir();
    const outside = dir();
    symlinkSync(outside, join(root, "etc"));
    const e = await writeContract(root, files, silentLogger()).catch((x: unknown) => x);
    expect((e as AgentError).code).toBe("installer");
    expect(existsSync(join(outside, "metal"))).toBe(false);
  });

  test("a link at the file's own name is replaced, its target outside untouched", async () => {
    const root = dir();
    const outside = dir();
    mkdirSync(join(root, "etc/metal"), { recursive: true });
    symlinkSync(join(outside, "stolen"), join(root, "etc/metal/machine-details.yaml"));
    await writeContract(root, files, silentLogger());
    expect(existsSync(join(outside, "stolen"))).toBe(false);
    expect(statSync(join(root, "etc/metal/machine-details.yaml")).mode & 0o777).toBe(0o600);
  });

  test("lvmlocal.conf is written 0600 into an image with /etc/lvm, as metal-hammer does; an image without /etc/lvm gets none (logged)", async () => {
    const conf = { files: [...files.files, { path: LVMLOCAL_PATH, content: lvmLocalConf(), onlyIfDirExists: true }] };
    const without = dir();
    const lines: string[] = [];
    const log = createLogger({ level: "info", format: "json", write: (l) => void lines.push(l), secrets: new SecretSet() });
    expect(await writeContract(without, conf, log)).toEqual(["/etc/metal/machine-details.yaml"]);
    expect(existsSync(join(without, "etc/lvm"))).toBe(false);
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: "install.config", skipped: [LVMLOCAL_PATH] });
    expect(JSON.parse(lines[0]!).msg).toEndWith("; not written (the image has no /etc/lvm): /etc/lvm/lvmlocal.conf");
    const withLvm = dir();
    mkdirSync(join(withLvm, "etc/lvm"), { recursive: true });
    expect(await writeContract(withLvm, conf, silentLogger())).toEqual(["/etc/metal/machine-details.yaml", LVMLOCAL_PATH]);
    expect(statSync(join(withLvm, LVMLOCAL_PATH)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(withLvm, LVMLOCAL_PATH), "utf8")).toBe(lvmLocalConf());
  });
});

test("lvmlocal.conf: LVM without udev, in lvm.conf syntax (metal-hammer's lvmlocal.conf settings)", () => {
  expect(lvmLocalConf()).toBe(
    "# Written by metal-hammer: LVM without udev (as metal-hammer's lvmlocal.conf).\n" +
      "activation {\n    udev_sync = 0\n    udev_rules = 0\n}\n" +
      "devices {\n    multipath_component_detection = 0\n    md_component_detection = 0\n    obtain_device_list_from_udev = 0\n}\n",
  );
});

describe("cleaning the target", () => {
  test("removes everything but the filesystems' lost+found and the mount points (emptied) with their parents", async () => {
    const root = dir();
    for (const d of ["lost+found", "boot/efi/EFI", "usr/bin", "var/lib/lost+found", "var/lost+found"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "boot/efi/EFI/grubx64.efi"), "x");
    writeFileSync(join(root, "boot/vmlinuz"), "x");
    writeFileSync(join(root, "usr/bin/sh"), "x");
    symlinkSync("/etc/passwd", join(root, "link"));
    const mountinfo = `40 1 8:2 / ${root} rw - ext4 /dev/sdb2 rw\n41 40 8:1 / ${root}/boot/efi rw - vfat /dev/sdb1 rw\n42 40 8:3 / ${root}/var/lib rw - ext4 /dev/sdb3 rw\n`;
    await cleanTarget(root, async () => mountinfo);
    expect(existsSync(join(root, "lost+found"))).toBe(true);
    // each filesystem keeps the lost+found mkfs made; one that is only a directory goes
    expect(existsSync(join(root, "var/lib/lost+found"))).toBe(true);
    expect(existsSync(join(root, "var/lost+found"))).toBe(false);
    expect(existsSync(join(root, "boot/efi"))).toBe(true);
    expect(existsSync(join(root, "boot/efi/EFI"))).toBe(false);
    expect(existsSync(join(root, "boot/vmlinuz"))).toBe(false);
    expect(existsSync(join(root, "usr"))).toBe(false);
    expect(existsSync(join(root, "link"))).toBe(false);
    expect(existsSync("/etc/passwd")).toBe(true);
  });

  test("keeps /etc/metal/disk.json the layout wrote (a second download pass deleted it on main)", async () => {
    const root = dir();
    mkdirSync(join(root, "etc/metal"), { recursive: true });
    writeFileSync(join(root, "etc/metal/disk.json"), '{"Device":"legacy"}');
    writeFileSync(join(root, "etc/metal/other"), "x");
    writeFileSync(join(root, "etc/passwd"), "x");
    await cleanTarget(root, async () => `40 1 8:2 / ${root} rw - ext4 /dev/sdb2 rw\n`);
    expect(readFileSync(join(root, "etc/metal/disk.json"), "utf8")).toBe('{"Device":"legacy"}');
    expect(existsSync(join(root, "etc/metal/other"))).toBe(false);
    expect(existsSync(join(root, "etc/passwd"))).toBe(false);
  });

  test("a kept path that the first pass turned into a link is removed, not followed", async () => {
    const root = dir();
    const outside = dir();
    writeFileSync(join(outside, "precious"), "x");
    symlinkSync(outside, join(root, "etc"));
    await cleanTarget(root, async () => "");
    expect(existsSync(join(outside, "precious"))).toBe(true);
    expect(existsSync(join(root, "etc"))).toBe(false);
  });

  test("refuses / and relative paths", async () => {
    await expect(cleanTarget("/", async () => "")).rejects.toThrow("refusing to clean");
    await expect(cleanTarget("relative/dir", async () => "")).rejects.toThrow("refusing to clean");
  });
});

describe("unpack tools", () => {
  test("GNU tar and lz4 pass; busybox's tar applet is named as the problem", async () => {
    const { checkTools } = await import("../../src/install/extract.ts");
    expect(checkTools()).toBeUndefined(); // tar and lz4 are in APT_PACKAGES
    const fake = join(dir(), "tar");
    writeFileSync(fake, "#!/bin/sh\necho 'tar (busybox) 1.36.1'\n");
    chmodSync(fake, 0o755);
    expect(checkTools({ tar: fake })).toContain("is not GNU tar");
    expect(checkTools({ tar: "/nonexistent/tar" })).toContain("cannot run /nonexistent/tar --version");
  });
});
