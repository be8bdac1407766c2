/**
 * The flow's clock stage in the QEMU lab (root, QEMU, the lab kernel and initramfs):
 * the VM's RTC says 2001, so every certificate of the stand-ins is "not yet valid".
 * With METAL_NTP_SERVERS naming the lab's SNTP stand-in the agent (PID 1) steps the
 * clock before its first TLS connection and the flow goes on through metal-boot, the
 * apiserver and Register; without it, the TLS error names the machine's clock and the
 * parameter to set.
 *
 * The first boot also carries the hardware watchdog proof through the flow (one boot
 * for both, suite time): the VM has an i6300esb, PID 1 loads its driver by modalias,
 * the agent arms it with METAL_WATCHDOG's short timeout, pets it through every stage
 * up to Register (none of them is reset) and METAL_DEBUG_HANG=wait blocks it at the
 * wait stage: the watchdog resets the VM (QEMU -no-reboot exits) within the timeout.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Outcome } from "../../lab/base/serial-console.ts";
import { defaultRun, runLab, type LabResult } from "../../lab/direct/lab.ts";
import { SERVICE_ADDR } from "../../lab/rig/plan.ts";
import { labMissing } from "../../lab/base/prereqs.ts";
import { standinServers, type LabServer, type LabServerEnv } from "../../lab/standins/servers.ts";
import { LOKI_PORT } from "../integration/clock/lab-ops-servers.ts";

const missing = labMissing();
if (missing.length > 0 && process.env.CI === "true") throw new Error(`e2e clock cannot run under CI: missing ${missing.join(", ")}`);
const skipped = missing.length > 0 ? ` (skipped: missing ${missing.join(", ")})` : "";

const BOUND_MS = 150_000;
const ev = (r: LabResult, event: string) => r.records.filter((x) => x.event === event);
/** The stand-ins plus the lab's SNTP stand-in (correct time) on [SERVICE_ADDR]:123. */
const servers = (env: LabServerEnv): LabServer[] => [
  ...standinServers(env),
  { name: "ops", argv: [process.execPath, join(import.meta.dir, "../integration/clock/lab-ops-servers.ts"), "--addr", env.addr], port: LOKI_PORT, logs: [] },
];
const RTC_2001 = ["-rtc", "base=2001-01-01T00:00:00"];
const boot = (extraCmdline: string[], extraQemu: string[] = [], expect: Outcome = "reboot") =>
  runLab(defaultRun({ live: false, timeoutMs: BOUND_MS, expect, servers, extraQemu: [...RTC_2001, ...extraQemu], extraCmdline }));
/** METAL_WATCHDOG's smallest timeout (src/config/params.ts): the hang costs the suite this long. */
const WATCHDOG_S = 5;

describe.skipIf(missing.length > 0)(`QEMU lab: an RTC that says 2001${skipped}`, () => {
  test(
    "with METAL_NTP_SERVERS the clock stage steps the clock before any TLS and the flow goes on; hung at the wait, the agent's watchdog resets the VM within its timeout",
    async () => {
      const r = await boot(
        [`METAL_NTP_SERVERS=[${SERVICE_ADDR}]`, `METAL_WATCHDOG=${WATCHDOG_S}s`, "METAL_DEBUG_HANG=wait"],
        ["-device", "i6300esb", "-watchdog-action", "reset"],
        "crashed",
      );
      const sync = ev(r, "clock.sync");
      expect(sync[0]).toMatchObject({ stepped: true, server: `[${SERVICE_ADDR}]:123` });
      expect(String(sync[0]?.msg)).toMatch(/^clock moved by \d+\.\d{3} s \(\d+ d( \d+ h)? behind of /);
      const stages = ev(r, "agent.stage").map((s) => s.stage);
      expect(stages.slice(0, 3)).toEqual(["network", "clock", "boot"]);
      // TLS to metal-boot and the apiserver worked with the corrected clock: Register went through.
      expect(ev(r, "provision.register")).toHaveLength(1);
      expect(ev(r, "agent.fatal").map((f) => f.code)).not.toContain("tls");

      // The watchdog: driver loaded by modalias, armed by the agent with METAL_WATCHDOG's timeout, petted through every stage.
      expect(ev(r, "init.module").map((m) => m.module)).toContain("i6300esb");
      expect(ev(r, "watchdog.open")).toEqual([expect.objectContaining({ device: "/dev/watchdog", timeoutS: WATCHDOG_S })]);
      expect(ev(r, "watchdog.error")).toEqual([]);
      const hang = ev(r, "agent.stage").find((s) => s.debugHang === true);
      expect(hang).toMatchObject({ stage: "wait", debugHang: true, level: 40 });
      expect(String(hang?.msg)).toBe(`METAL_DEBUG_HANG=wait: the agent hangs here on purpose; the hardware watchdog (armed, timeout ${WATCHDOG_S} s) must reset the machine`);
      // A real hang: the agent (PID 1) wrote nothing after it, did not wait, close the watchdog or reboot.
      expect(r.records.at(-1)).toBe(hang!);
      expect(ev(r, "provision.wait")).toEqual([]);
      expect(ev(r, "watchdog.close")).toEqual([]);
      // The reset: QEMU (-no-reboot) exits with no kernel "reboot:" line and no panic, before the lab's bound.
      expect(r.outcome).toBe("crashed");
      expect(r.qemuExit).toBe(0);
      expect(r.lines.some((l) => /Kernel panic/.test(l.text))).toBe(false);
      // Within the timeout of the last ping: the stage pets just before the hang (pets are at most 1 s apart
      // in time), so the reset comes between timeout - 1 s and the timeout after the hang line, give or take
      // the console's latency.
      const resetAfterMs = r.qemuEndMs - hang!.ms;
      console.log(`watchdog reset ${resetAfterMs} ms after the METAL_DEBUG_HANG line (timeout ${WATCHDOG_S} s)`);
      expect(resetAfterMs).toBeGreaterThan(WATCHDOG_S * 1000 - 2000);
      expect(resetAfterMs).toBeLessThan(WATCHDOG_S * 1000 + 2000);
    },
    BOUND_MS + 30_000,
  );

  test(
    "without METAL_NTP_SERVERS the TLS error to metal-boot names the machine's clock and the parameter",
    async () => {
      const r = await boot([]);
      expect(ev(r, "clock.skip")).toHaveLength(1);
      const fatal = ev(r, "agent.fatal")[0];
      expect(fatal).toMatchObject({ code: "tls", clockTls: "not_yet_valid" });
      expect(String(fatal?.msg)).toContain("the machine's clock says 2001-01-01T");
      expect(String(fatal?.msg)).toContain("No NTP server is configured: set METAL_NTP_SERVERS=");
    },
    BOUND_MS + 30_000,
  );
});
