/**
 * The installer chroot's mounts through an injected mount service: /dev, /proc, /sys
 * recursive binds, and efivarfs at /sys/firmware/efi/efivars on UEFI (after /sys, as
 * metal-hammer's specialMounts), all detached in reverse order after the run, also
 * when a mount fails or the installer fails.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentError } from "../../src/errors.ts";
import { bindSystem, runInstaller } from "../../src/install/installer.ts";
import { silentLogger } from "../../src/log/logger.ts";
import { MNT_DETACH, MS_BIND, MS_REC, type MountSys } from "../../src/sys/mount.ts";

function recorder(failOn?: string) {
  const calls: string[] = [];
  const sys: MountSys = {
    mount: (source, target, fstype, flags) => {
      calls.push(`mount ${source} ${target} ${fstype || "-"} ${flags}`);
      return failOn && target.endsWith(failOn) ? 19 : 0; // ENODEV
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

describe("installer chroot mounts", () => {
  test("BIOS: /dev, /proc, /sys bound, no efivarfs", async () => {
    const r = root();
    const { sys, calls } = recorder();
    const done = await bindSystem(r, sys, false);
    expect(calls).toEqual([`mount /dev ${r}/dev - ${BIND}`, `mount /proc ${r}/proc - ${BIND}`, `mount /sys ${r}/sys - ${BIND}`]);
    expect(done).toEqual([`${r}/dev`, `${r}/proc`, `${r}/sys`]);
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
    expect(calls.slice(-3)).toEqual([`umount ${r}/sys ${MNT_DETACH}`, `umount ${r}/proc ${MNT_DETACH}`, `umount ${r}/dev ${MNT_DETACH}`]);
  });

  for (const ok of [true, false]) {
    test(`UEFI run (${ok ? "installer succeeds" : "installer fails"}): every mount detached after, efivarfs first`, async () => {
      const r = root();
      writeFileSync(join(r, "install.sh"), "#!/bin/sh\n", { mode: 0o755 });
      mkdirSync(join(r, "etc/metal"), { recursive: true });
      writeFileSync(join(r, "etc/metal/boot-info.yaml"), "kernel: /boot/vmlinuz\ncmdline: x\nbootloader_id: debian\n");
      const { sys, calls } = recorder();
      // The "chroot" is a command that ignores its arguments: the test is about the mounts around it.
      const run = runInstaller({ root: r, log: silentLogger(), mounts: sys, uefi: true, chroot: [ok ? "true" : "false"] });
      if (ok) expect((await run).bootInfo.bootloaderId).toBe("debian");
      else await expect(run).rejects.toThrow("/install.sh failed (exit 1)");
      expect(calls.filter((c) => c.startsWith("umount"))).toEqual([
        `umount ${r}/sys/firmware/efi/efivars ${MNT_DETACH}`,
        `umount ${r}/sys ${MNT_DETACH}`,
        `umount ${r}/proc ${MNT_DETACH}`,
        `umount ${r}/dev ${MNT_DETACH}`,
      ]);
    });
  }
});
