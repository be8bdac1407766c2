import { describe, expect, test } from "bun:test";
import { AgentError } from "../../src/platform/errors.ts";
import { bootInstalled } from "../../src/install/kexec.ts";
import { createLogger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import type { KexecArgs, KexecSys } from "../../src/platform/sys/kexec-syscall.ts";
import { LINUX_REBOOT_CMD_KEXEC, LINUX_REBOOT_CMD_RESTART } from "../../src/platform/sys/reboot-syscall.ts";

function recorder(opts: { loadErrno?: number; openErrno?: Record<string, number>; rebootErrno?: number } = {}) {
  const calls: string[] = [];
  const loads: KexecArgs[] = [];
  let next = 10;
  const sys: KexecSys = {
    openRead: (root, path) => {
      const p = `${root}${path}`;
      calls.push(`open ${p}`);
      const e = opts.openErrno?.[p];
      return e ? { error: `open ${path}: ${e === 2 ? "ENOENT" : e}` } : { fd: next++ };
    },
    close: (fd) => void calls.push(`close ${fd}`),
    kexecFileLoad: (a) => {
      calls.push("load");
      loads.push(a);
      return opts.loadErrno ?? 0;
    },
    reboot: (cmd) => {
      calls.push(cmd === LINUX_REBOOT_CMD_KEXEC ? "reboot KEXEC" : cmd === LINUX_REBOOT_CMD_RESTART ? "reboot RESTART" : `reboot ${cmd}`);
      return opts.rebootErrno ?? 0;
    },
    sync: () => void calls.push("sync"),
    drainConsole: () => void calls.push("drain"),
  };
  const unmountTarget = async () => void calls.push("unmount");
  const log = createLogger({ level: "info", format: "json", write: () => {}, secrets: new SecretSet(), flush: async () => void calls.push("flush") });
  return { sys, calls, loads, unmountTarget, log };
}

const info = { kernel: "/boot/vmlinuz", initrd: "/boot/initrd.img", cmdline: "console=ttyS0 root=UUID=1", bootloaderId: "debian" };

describe("booting the installed OS", () => {
  test("load with both fds, close them, unmount, sync, the last line flushed and the console drained, then reboot(KEXEC): in that order", async () => {
    const r = recorder();
    const out = await bootInstalled({ root: "/mnt/t", bootInfo: info, log: r.log, sys: r.sys, unmountTarget: r.unmountTarget });
    expect(out).toEqual({ how: "kexec" });
    expect(r.calls).toEqual(["open /mnt/t/boot/vmlinuz", "open /mnt/t/boot/initrd.img", "load", "close 10", "close 11", "unmount", "sync", "flush", "drain", "reboot KEXEC"]);
    expect(r.loads[0]!.kernelFd).toBe(10);
    expect(r.loads[0]!.initrdFd).toBe(11);
  });

  test.each([
    [1, "EPERM"],
    [38, "errno 38"],
    [129, "EKEYREJECTED"],
  ])("kexec refused (errno %d) -> unmount, then an ordinary reboot, and the reason says so", async (errno, name) => {
    const r = recorder({ loadErrno: errno });
    const out = await bootInstalled({ root: "/mnt/t", bootInfo: info, log: r.log, sys: r.sys, unmountTarget: r.unmountTarget });
    expect(out.how).toBe("reboot");
    expect(out.how === "reboot" && out.reason).toContain(name);
    expect(out.how === "reboot" && out.reason).toContain("refused");
    expect(r.calls.slice(-5)).toEqual(["unmount", "sync", "flush", "drain", "reboot RESTART"]);
    expect(r.calls).not.toContain("reboot KEXEC");
  });

  test("a kernel file missing in the image: no load, reboot with the open error named", async () => {
    const r = recorder({ openErrno: { "/mnt/t/boot/vmlinuz": 2 } });
    const out = await bootInstalled({ root: "/mnt/t", bootInfo: info, log: r.log, sys: r.sys, unmountTarget: r.unmountTarget });
    expect(out).toEqual({ how: "reboot", reason: "open /boot/vmlinuz: ENOENT" });
    expect(r.calls).not.toContain("load");
  });

  test("the watchdog is closed (beforeReboot) only after kexec_file_load, right before reboot(2); also on the fallback reboot", async () => {
    for (const loadErrno of [0, 1]) {
      const r = recorder({ loadErrno });
      await bootInstalled({
        root: "/mnt/t",
        bootInfo: info,
        log: r.log,
        sys: r.sys,
        unmountTarget: r.unmountTarget,
        beforeReboot: async () => void r.calls.push("watchdog closed"),
      });
      expect(r.calls.indexOf("watchdog closed")).toBeGreaterThan(r.calls.indexOf("load"));
      expect(r.calls.slice(-4)).toEqual(["watchdog closed", "flush", "drain", loadErrno === 0 ? "reboot KEXEC" : "reboot RESTART"]);
    }
  });

  test("reboot failing too is the kexec error (exit 55)", async () => {
    const r = recorder({ loadErrno: 1, rebootErrno: 1 });
    const e = await bootInstalled({ root: "/mnt/t", bootInfo: info, log: r.log, sys: r.sys, unmountTarget: r.unmountTarget }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).exitCode).toBe(55);
  });

  test("no initrd: one fd, no initramfs flag", async () => {
    const r = recorder();
    await bootInstalled({ root: "/mnt/t", bootInfo: { ...info, initrd: "" }, log: r.log, sys: r.sys, unmountTarget: r.unmountTarget });
    expect(r.loads[0]!.initrdFd).toBe(-1);
    expect(r.calls.filter((c) => c.startsWith("open"))).toEqual(["open /mnt/t/boot/vmlinuz"]);
  });
});
