/**
 * The flow's clock stage in the QEMU lab (root, QEMU, the lab kernel and initramfs):
 * the VM's RTC says 2001, so every certificate of the stand-ins is "not yet valid".
 * With METAL_NTP_SERVERS naming the lab's SNTP stand-in the agent (PID 1) steps the
 * clock before its first TLS connection and the flow goes on through metal-boot, the
 * apiserver and Register; without it, the TLS error names the machine's clock and the
 * parameter to set.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defaultRun, runLab, type LabResult } from "../../lab/lab.ts";
import { SERVICE_ADDR } from "../../lab/plan.ts";
import { labMissing } from "../../lab/prereqs.ts";
import { standinServers, type LabServer, type LabServerEnv } from "../../lab/servers.ts";
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
const boot = (extraCmdline: string[]) =>
  runLab(defaultRun({ live: false, timeoutMs: BOUND_MS, expect: "reboot", servers, extraQemu: ["-rtc", "base=2001-01-01T00:00:00"], extraCmdline }));

describe.skipIf(missing.length > 0)(`QEMU lab: an RTC that says 2001${skipped}`, () => {
  test("with METAL_NTP_SERVERS the clock stage steps the clock before any TLS and the flow goes on", async () => {
    const r = await boot([`METAL_NTP_SERVERS=[${SERVICE_ADDR}]`]);
    const sync = ev(r, "clock.sync");
    expect(sync[0]).toMatchObject({ stepped: true, server: `[${SERVICE_ADDR}]:123` });
    expect(String(sync[0]?.msg)).toMatch(/^clock moved by \d+\.\d{3} s \(\d+ d( \d+ h)? behind of /);
    const stages = ev(r, "agent.stage").map((s) => s.stage);
    expect(stages.slice(0, 3)).toEqual(["network", "clock", "boot"]);
    // TLS to metal-boot and the apiserver worked with the corrected clock: Register went through.
    expect(ev(r, "provision.register")).toHaveLength(1);
    expect(ev(r, "agent.fatal").map((f) => f.code)).not.toContain("tls");
  }, BOUND_MS + 30_000);

  test("without METAL_NTP_SERVERS the TLS error to metal-boot names the machine's clock and the parameter", async () => {
    const r = await boot([]);
    expect(ev(r, "clock.skip")).toHaveLength(1);
    const fatal = ev(r, "agent.fatal")[0];
    expect(fatal).toMatchObject({ code: "tls", clockTls: "not_yet_valid" });
    expect(String(fatal?.msg)).toContain("the machine's clock says 2001-01-01T");
    expect(String(fatal?.msg)).toContain("No NTP server is configured: set METAL_NTP_SERVERS=");
  }, BOUND_MS + 30_000);
});
