/**
 * The installer chroot's mounts through an injected mount service: /dev and /sys
 * recursive binds (/proc is the installer's own PID namespace's, mounted by unshare), each onto the fd of a
 * target resolved inside the root, and efivarfs at /sys/firmware/efi/efivars on UEFI (after /sys, as
 * metal-hammer's specialMounts), all detached in reverse order after the run, also
 * when a mount fails or the installer fails.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentError } from "../../src/platform/errors.ts";
import { bindSystem, runInstaller } from "../../src/install/installer.ts";
import { silentLogger } from "../../src/platform/log/logger.ts";
import { MNT_DETACH, MS_BIND, MS_REC, UMOUNT_NOFOLLOW, type MountSys } from "../../src/platform/sys/mount.ts";

function recorder(failOn?: string) {
  const calls: string[] = [];
  const sys: MountSys = {
    mount: (source, target, fstype, flags) => {
      // The target is /proc/self/fd/N of a directory resolved inside the root: record where it points.
      const at = target.startsWith("/proc/self/fd/") ? readlinkSync(target) : `NOT-AN-FD:${target}`;
      calls.push(`mount ${source} ${at} ${fstype || "-"} ${flags}`);
      return failOn && at.endsWith(failOn) ? 19 : 0; // ENODEV
    },
    umount: (target, flags) => (calls.push(`umount ${target} ${flags}`), 0),
  };
  return { sys, calls };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function root(): string {
  const r = mkdtempSync(join(tmpdir(), "mh-chroot-mounts-"));
  dirs.push(r);
  return r;
}
const BIND = MS_BIND | MS_REC;
const UNMOUNT = MNT_DETACH | UMOUNT_NOFOLLOW;

describe("installer chroot mounts", () => {
  test("BIOS: /dev, /sys bound, no efivarfs, no /proc (the installer's namespace has its own)", async () => {
    const r = root();
    const { sys, calls } = recorder();
    const done = await bindSystem(r, sys, false);
    expect(calls).toEqual([`mount /dev ${r}/dev - ${BIND}`, `mount /sys ${r}/sys - ${BIND}`]);
    expect(done).toEqual([`${r}/dev`, `${r}/sys`]);
  });

  test("a /dev or /sys that is a link out of the root binds inside the root, never onto the running system (issue 29)", async () => {
    const r = root();
    const outside = root();
    symlinkSync(outside, join(r, "dev"));
    symlinkSync("../../../../../../../../..", join(r, "sys"));
    mkdirSync(join(r, outside), { recursive: true });
    const { sys, calls } = recorder();
    const done = await bindSystem(r, sys, false);
    expect(calls).toEqual([`mount /dev ${r}${outside} - ${BIND}`, `mount /sys ${r} - ${BIND}`]);
    expect(done.every((d) => d.startsWith(r))).toBe(true);
  });

  test("a mount target that is a FIFO is refused, naming it", async () => {
    const r = root();
    Bun.spawnSync(["mkfifo", join(r, "dev")]);
    const { sys, calls } = recorder();
    await expect(bindSystem(r, sys, false)).rejects.toThrow(/mount point \/dev: .*ENOTDIR/);
    expect(calls).toEqual([]);
    expect(existsSync(join(r, "dev"))).toBe(true);
  });

  test("UEFI: efivarfs mounted at /sys/firmware/efi/efivars after /sys", async () => {
    const r = root();
    const { sys, calls } = recorder();
    const done = await bindSystem(r, sys, true);
    expect(calls.at(-1)).toBe(`mount efivarfs ${r}/sys/firmware/efi/efivars efivarfs 0`);
    expect(calls.at(-2)).toBe(`mount /sys ${r}/sys - ${BIND}`);
    expect(done.at(-1)).toBe(`${r}/sys/firmware/efi/efivars`);
  });

  test("UEFI: a failing efivarfs mount names it and detaches the binds made", async () => {
    const r = root();
    const { sys, calls } = recorder("/efivars");
    const err = await bindSystem(r, sys, true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).code).toBe("installer");
    expect((err as Error).message).toBe(`installer: cannot mount efivarfs onto ${r}/sys/firmware/efi/efivars (errno 19)`);
    expect(calls.slice(-2)).toEqual([`umount ${r}/sys ${UNMOUNT}`, `umount ${r}/dev ${UNMOUNT}`]);
  });

  for (const ok of [true, false]) {
    test(`UEFI run (${ok ? "installer succeeds" : "installer fails"}): every mount detached after, efivarfs first`, async () => {
      const r = root();
      writeFileSync(join(r, "install.sh"), "#!/bin/sh\n", { mode: 0o755 });
      mkdirSync(join(r, "etc/metal"), { recursive: true });
      writeFileSync(join(r, "etc/metal/boot-info.yaml"), "kernel: /boot/vmlinuz\ncmdline: x\nbootloader_id: debian\n");
      const { sys, calls } = recorder();
      // The "chroot" is a command that ignores its arguments: the test is about the mounts around it.
      const run = runInstaller({ root: r, log: silentLogger(), mounts: sys, uefi: true, chroot: [ok ? "true" : "false"], contain: () => [] });
      if (ok) expect((await run).bootInfo.bootloaderId).toBe("debian");
      else await expect(run).rejects.toThrow("/install.sh failed (exit 1)");
      expect(calls.filter((c) => c.startsWith("umount"))).toEqual([`umount ${r}/sys/firmware/efi/efivars ${UNMOUNT}`, `umount ${r}/sys ${UNMOUNT}`, `umount ${r}/dev ${UNMOUNT}`]);
    });
  }
});
