/**
 * QEMU proofs of the parts only a VM can show (root, QEMU, the lab's kernel and
 * initramfs): the real clock_settime and RTC_SET_TIME in the compiled agent, and the
 * magic close disarming a real hardware watchdog (-device i6300esb).
 * Both run from the debug shell (the flow is stopped at once by a bad METAL_BOOT_URL
 * with DEBUG=1), so they do not depend on the flow calling these parts. The watchdog
 * driver (watchdog core + i6300esb) is in the initramfs: PID 1 loads it by the
 * device's modalias. A hung agent reset by it is proven through the flow in
 * test/e2e/clock.test.ts; here the magic close that disarms it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defaultRun, runLab, type LabResult } from "../../../lab/direct/lab.ts";
import { LAB_INITRD, LAB_KERNEL } from "../../../lab/base/kernel.ts";
import { SERVICE_ADDR } from "../../../lab/rig/plan.ts";
import { labMissing } from "../../../lab/base/prereqs.ts";
import type { LabServer, LabServerEnv } from "../../../lab/standins/servers.ts";
import { LOKI_PORT } from "./lab-ops-servers.ts";

const missing = labMissing();
if (missing.length > 0 && process.env.CI === "true") throw new Error(`clock/watchdog QEMU suite cannot run under CI: missing ${missing.join(", ")}`);

const BOUND_MS = 180_000;
const opsServers = (env: LabServerEnv): LabServer[] => [
  { name: "ops", argv: [process.execPath, join(import.meta.dir, "lab-ops-servers.ts"), "--addr", env.addr], port: LOKI_PORT, logs: [] },
];
const ev = (r: LabResult, event: string) => r.records.filter((x) => x.event === event);
const SHELL = /"event":"init.shell".*"reason"/;
/** A VM whose flow stops at once (bad METAL_BOOT_URL, DEBUG=1): `script` is typed into the debug shell and ends with poweroff. */
const shellRun = (extraQemu: string[], script: string) =>
  runLab(
    defaultRun({
      kernel: LAB_KERNEL,
      initrd: LAB_INITRD,
      live: false,
      timeoutMs: BOUND_MS,
      debug: true,
      expect: "poweroff",
      servers: opsServers,
      extraQemu,
      extraCmdline: ["METAL_BOOT_URL=ftp://nowhere"],
      consoleInput: { after: SHELL, text: script },
    }),
  );

describe.skipIf(missing.length > 0)(`QEMU: the clock is set from an RTC that says 2001${missing.length ? ` (skipped: missing ${missing.join(", ")})` : ""}`, () => {
  test(
    "clock --set steps the system clock and writes the RTC; one line says by how much",
    async () => {
      const r = await shellRun(
        ["-rtc", "base=2001-01-01T00:00:00"],
        `export METAL_LOG_FORMAT=json; Y1=$(date -u +%Y); metal-hammer net up --fast --timeout 30s --resolv-conf /tmp/resolv.conf >/dev/null 2>&1; metal-hammer clock --set --servers '[${SERVICE_ADDR}]' --json; echo "clock-years $Y1 $(date -u +%Y) rtc-$(cut -c1-4 /sys/class/rtc/rtc0/date)"; poweroff -f\n`,
      );
      const years = r.lines.map((l) => /^clock-years (\d{4}) (\d{4}) rtc-(\d{4})$/.exec(l.text)).find((m) => m);
      const thisYear = String(new Date().getUTCFullYear());
      expect(years?.slice(1)).toEqual(["2001", thisYear, thisYear]);
      const sync = ev(r, "clock.sync");
      expect(sync).toHaveLength(1);
      expect(sync[0]).toMatchObject({ stepped: true, server: `[${SERVICE_ADDR}]:123` });
      expect(String(sync[0]!.msg)).toMatch(/^clock moved by \d+\.\d{3} s \(\d+ d( \d+ h)? behind of \[fd6d:686c:0:ffff::1\]:123\): 2001-01-01T/);
      expect(ev(r, "clock.rtc")[0]).toMatchObject({ device: "/dev/rtc0", ok: true });
      expect(r.outcome).toBe("poweroff");
    },
    BOUND_MS + 30_000,
  );
});

describe.skipIf(missing.length > 0)(`QEMU: the magic close disarms the hardware watchdog (i6300esb)${missing.length ? ` (skipped: missing ${missing.join(", ")})` : ""}`, () => {
  // The reset itself is proven through the flow (test/e2e/clock.test.ts: the agent arms the
  // watchdog, METAL_DEBUG_HANG blocks it, the VM resets within the timeout); `watchdog test`
  // arms it through the same startWatchdog. What only this test shows: the magic close (what
  // the agent does before reboot and kexec) really disarms a real watchdog.
  test(
    "armed with 3 s and closed with 'V', the VM keeps running 8 s later",
    async () => {
      // PID 1 loaded i6300esb (and watchdog) by the device's modalias: the driver is in the initramfs.
      const r = await shellRun(
        ["-device", "i6300esb", "-watchdog-action", "reset"],
        `echo "wdev-$(ls /dev/watchdog)" && export METAL_LOG_FORMAT=json && metal-hammer watchdog test --timeout 3s --magic-close; echo "survived-$?"; poweroff -f\n`,
      );
      expect(ev(r, "init.module").map((m) => m.module)).toContain("i6300esb");
      expect(r.lines.some((l) => l.text === "wdev-/dev/watchdog")).toBe(true);
      expect(ev(r, "watchdog.open")).toEqual([expect.objectContaining({ device: "/dev/watchdog", timeoutS: 3 })]);
      expect(ev(r, "watchdog.close")[0]).toMatchObject({ device: "/dev/watchdog", why: "watchdog test --magic-close" });
      expect(r.lines.some((l) => l.text === "watchdog test: still running 8 s after the magic close")).toBe(true);
      expect(r.lines.some((l) => l.text === "survived-0")).toBe(true);
      // Ended by the shell's poweroff, not by a watchdog reset (which would end QEMU without a "reboot: Power down" line).
      expect(r.outcome).toBe("poweroff");
    },
    BOUND_MS + 30_000,
  );
});
