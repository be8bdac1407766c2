/**
 * QEMU proofs of the parts only a VM can show (root, QEMU, the lab's kernel and
 * initramfs): the real clock_settime and RTC_SET_TIME in the compiled agent, and a real
 * hardware watchdog (-device i6300esb) resetting a machine whose agent stopped pinging.
 * Both run from the debug shell (the flow is stopped at once by a bad METAL_BOOT_URL
 * with DEBUG=1), so they do not depend on the flow calling these parts. The watchdog
 * modules (watchdog core + i6300esb) reach the VM through the lab's overlay archive
 * and are loaded with insmod from the shell: the initramfs's module list stays the
 * lab's NIC set.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultRun, runLab, type LabResult } from "../../../lab/lab.ts";
import { KVER, LAB_INITRD, LAB_KERNEL } from "../../../lab/kernel.ts";
import { SERVICE_ADDR } from "../../../lab/plan.ts";
import { labMissing } from "../../../lab/prereqs.ts";
import type { LabServer, LabServerEnv } from "../../../lab/servers.ts";
import { LOKI_PORT } from "./lab-ops-servers.ts";

const WD_MODULES = ["watchdog", "i6300esb"].map((m) => `lib/modules/${KVER}/kernel/drivers/watchdog/${m}.ko`);
const missing = labMissing(WD_MODULES.map((m) => (existsSync(`/${m}`) ? undefined : `/${m}`)));
if (missing.length > 0 && process.env.CI === "true") throw new Error(`clock/watchdog QEMU suite cannot run under CI: missing ${missing.join(", ")}`);

const BOUND_MS = 180_000;
const opsServers = (env: LabServerEnv, guestFiles: readonly string[] = []): LabServer[] => [
  {
    name: "ops",
    argv: [process.execPath, join(import.meta.dir, "lab-ops-servers.ts"), "--addr", env.addr],
    port: LOKI_PORT,
    logs: [],
    guest: () => ({ files: guestFiles.map((path) => ({ path, data: new Uint8Array(readFileSync(`/${path}`)) })), cmdline: [] }),
  },
];
const ev = (r: LabResult, event: string) => r.records.filter((x) => x.event === event);
const SHELL = /"event":"init.shell".*"reason"/;

describe.skipIf(missing.length > 0)(`QEMU: the clock is set from an RTC that says 2001${missing.length ? ` (skipped: missing ${missing.join(", ")})` : ""}`, () => {
  test("clock --set steps the system clock and writes the RTC; one line says by how much", async () => {
    const r = await runLab(
      defaultRun({
        kernel: LAB_KERNEL,
        initrd: LAB_INITRD,
        live: false,
        timeoutMs: BOUND_MS,
        debug: true,
        expect: "poweroff",
        servers: opsServers,
        extraQemu: ["-rtc", "base=2001-01-01T00:00:00"],
        extraCmdline: ["METAL_BOOT_URL=ftp://nowhere"],
        consoleInput: {
          after: SHELL,
          text: `export METAL_LOG_FORMAT=json; Y1=$(date -u +%Y); metal-hammer net up --fast --timeout 30s --resolv-conf /tmp/resolv.conf >/dev/null 2>&1; metal-hammer clock --set --servers '[${SERVICE_ADDR}]' --json; echo "clock-years $Y1 $(date -u +%Y) rtc-$(cut -c1-4 /sys/class/rtc/rtc0/date)"; poweroff -f\n`,
        },
      }),
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
  }, BOUND_MS + 30_000);
});

describe.skipIf(missing.length > 0)(`QEMU: a hung agent is reset by the hardware watchdog (i6300esb)${missing.length ? ` (skipped: missing ${missing.join(", ")})` : ""}`, () => {
  test("the magic close disarms it (the VM keeps running); armed and left alone it resets the VM within twice the timeout", async () => {
    const TIMEOUT_S = 5;
    let armedAt: number | undefined;
    const run = defaultRun({
      kernel: LAB_KERNEL,
      initrd: LAB_INITRD,
      live: false,
      timeoutMs: BOUND_MS,
      debug: true,
      expect: "reboot",
      servers: (env) => opsServers(env),
      extraQemu: ["-device", "i6300esb", "-watchdog-action", "reset"],
      extraCmdline: ["METAL_BOOT_URL=ftp://nowhere"],
      consoleInput: {
        after: SHELL,
        // PID 1 loaded i6300esb (and watchdog) by the device's modalias: the driver is in the initramfs.
        text: `echo "wdev-$(ls /dev/watchdog)" && export METAL_LOG_FORMAT=json && metal-hammer watchdog test --timeout 3s --magic-close && echo "survived-$?" && metal-hammer watchdog test --timeout ${TIMEOUT_S}s\n`,
      },
    });
    // The console file grows line by line: note when the arming line appears (wall clock).
    const consoleFile = join(run.dir, "console.log");
    const watch = setInterval(() => {
      if (armedAt === undefined && existsSync(consoleFile) && readFileSync(consoleFile, "utf8").split('"event":"watchdog.open"').length === 3) armedAt = performance.now();
    }, 100);
    let r: LabResult;
    try {
      r = await runLab(run);
    } finally {
      clearInterval(watch);
    }
    const endedAt = performance.now();
    expect(ev(r, "init.module").map((m) => m.module)).toContain("i6300esb");
    expect(r.lines.some((l) => l.text === "wdev-/dev/watchdog")).toBe(true);
    // First: armed with 3 s, disarmed by the magic close, and still running 8 s later.
    expect(ev(r, "watchdog.open")[0]).toMatchObject({ device: "/dev/watchdog", timeoutS: 3 });
    expect(ev(r, "watchdog.close")[0]).toMatchObject({ device: "/dev/watchdog", why: "watchdog test --magic-close" });
    expect(r.lines.some((l) => l.text === "watchdog test: still running 8 s after the magic close")).toBe(true);
    expect(r.lines.some((l) => l.text === "survived-0")).toBe(true);
    // Then: armed with 5 s and left alone.
    expect(ev(r, "watchdog.open")[1]).toMatchObject({ device: "/dev/watchdog", timeoutS: TIMEOUT_S });
    // QEMU exits (-no-reboot) on the watchdog's reset: no kernel "reboot:" line, no lab timeout.
    expect(r.outcome).toBe("crashed");
    expect(r.qemuExit).toBe(0);
    expect(r.lines.some((l) => /Kernel panic/.test(l.text))).toBe(false);
    expect(armedAt).toBeDefined();
    const resetAfterMs = endedAt - armedAt!;
    // Not before the first stage could expire, and within both stages plus slack for a loaded host.
    expect(resetAfterMs).toBeGreaterThan(TIMEOUT_S * 1000 - 500);
    expect(resetAfterMs).toBeLessThan(2 * TIMEOUT_S * 1000 + 15_000);
    console.log(`watchdog reset ${Math.round(resetAfterMs)} ms after arming (timeout ${TIMEOUT_S} s)`);
  }, BOUND_MS + 30_000);
});
