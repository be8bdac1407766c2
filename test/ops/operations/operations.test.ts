/**
 * The operations services through a simulated run, as the flow will call them: the
 * watchdog on a fake device file, the clock stage against the in-process SNTP
 * stand-in a year ahead (injected setter), remote logging to the Loki stand-in, the
 * planned reboot, and the last lines flushed before the watchdog closes. Then
 * METAL_DEBUG_HANG in a child process: the event loop really stops, so the pings stop.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromCmdline } from "../../../src/config/config.ts";
import { createLogger, logEvent } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { Operations } from "../../../src/ops/operations/operations.ts";
import { LoggingSchema } from "../../../src/ops/remote-log/remote-log-config.ts";
import { openWatchdogDevice } from "../../../src/platform/sys/watchdog-device.ts";
import type { SntpEnv } from "../../../src/ops/clock/sntp-client.ts";
import { standinAnswer, YEAR_MS, type StandinMode } from "../../integration/clock/sntp-standin.ts";
import { startLoki } from "../../../lab/standins/loki.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-ops-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3133";
const TOKEN = "machine-token-0123456789abcdef";

const sntp = (now: () => number): SntpEnv => ({
  now,
  random: () => 0.5,
  sleep: async () => {},
  exchange: async (server, request) => {
    const sentMs = now();
    const a = standinAnswer(request(sentMs), server.host as StandinMode, now());
    return a ? { kind: "answer", bytes: a, sentMs, receivedMs: now() } : { kind: "failed", message: "silent" };
  },
});

describe("the operations services through a run", () => {
  test("watchdog, clock, remote log, planned reboot, status, last lines before the watchdog closes", async () => {
    const config = configFromCmdline("METAL_BOOT_URL=https://[fd00::1]/ METAL_NTP_SERVERS=year METAL_WATCHDOG=30s METAL_PLANNED_REBOOT=24h+24h METAL_WAIT_TIMEOUT=72h");
    const loki = startLoki();
    try {
      const secrets = new SecretSet();
      let now = Date.parse("2001-01-01T00:00:00Z");
      const statusPath = join(dir, "status.json");
      const ops = new Operations({ secrets, statusPath, now: () => now, random: () => 0.25 });
      const cap = capturingLogger(secrets, ops.sink);
      const log = cap.log;
      const wdFile = join(dir, "watchdog");
      writeFileSync(wdFile, "");

      ops.startWatchdog(config.watchdog, log, { path: wdFile, open: openWatchdogDevice, clock: { now: () => now, setInterval, clearInterval: (h) => clearInterval(h as Timer) } });
      ops.stage("network", log);
      const setTo: number[] = [];
      const clock = await ops.syncClock(config.ntpServers, log, { sntp: sntp(() => now), setClock: (t) => (setTo.push(t), 0), rtcPresent: () => false });
      now += YEAR_MS; // what clock_settime did
      expect(clock.decision).toBe("step");
      now += 1000;
      ops.stage("boot", log);
      secrets.add(TOKEN);
      logEvent(log, "boot.config", { token: TOKEN }, "config and token fetched");
      ops.startRemoteLog(LoggingSchema.parse({ endpoint: loki.pushUrl.href }), { uuid: UUID, log, secrets });
      now += 1000;
      ops.stage("wait", log);
      const bound = ops.planReboot(config, log);
      const reason = "no allocation came before the planned reboot (METAL_PLANNED_REBOOT=24h+24h): rebooting to pick up the current agent";
      const reboot = {
        boundMs: 24 * 3_600_000,
        jitterMs: 24 * 3_600_000,
        atMs: now + 30 * 3_600_000,
        at: new Date(now + 30 * 3_600_000).toISOString(),
        setting: "METAL_PLANNED_REBOOT=24h+24h",
        reason,
      };
      expect(bound).toEqual({ boundMs: 24 * 3_600_000 + 6 * 3_600_000, endsBy: "planned_reboot", reboot });
      ops.rebootDue(bound.reboot!, log);
      await ops.beforeReboot("planned reboot", log);

      // Loki has every line, in order, with 2002 stamps (the 2001 lines were moved by the step), and no token.
      await waitFor(() => loki.state.lines.length >= cap.lines.length - 1, 5000, "the lines at Loki");
      const shipped = loki.state.lines.map((l) => l.line);
      expect(shipped).toEqual(cap.lines.slice(0, shipped.length).map((l) => l.trimEnd()));
      expect(shipped.join("\n")).not.toContain(TOKEN);
      expect(shipped.some((l) => l.includes('"event":"clock.sync"'))).toBe(true);
      // The planned reboot: its reason and the time it was planned for, in the log and at Loki; not sent as an event (Send is INFRA_ROLE only).
      const due = cap.events("reboot.planned").find((r) => r.due === true);
      const plannedFor = new Date(now + 30 * 3_600_000).toISOString();
      expect(due).toMatchObject({
        at: plannedFor,
        reason: "no allocation came before the planned reboot (METAL_PLANNED_REBOOT=24h+24h): rebooting to pick up the current agent",
        provisioningEvent: "MACHINE_PROVISIONING_EVENT_TYPE_PLANNED_REBOOT",
        sent: false,
      });
      expect(due!.msg).toBe(
        `planned reboot due (planned for ${plannedFor}): no allocation came before the planned reboot (METAL_PLANNED_REBOOT=24h+24h): rebooting to pick up the current agent; not sent as MACHINE_PROVISIONING_EVENT_TYPE_PLANNED_REBOOT (EventService/Send is INFRA_ROLE_EDITOR only)`,
      );
      expect(shipped.map((l) => JSON.parse(l)).find((r) => r.event === "reboot.planned" && r.due === true)).toMatchObject({ at: plannedFor, reason: due!.reason });
      expect(new Date(Number(loki.state.lines[0]!.ns / 1_000_000n)).getUTCFullYear()).toBe(2002);

      // The watchdog was pinged at start and at every stage, and closed with 'V' last.
      expect(readFileSync(wdFile, "utf8")).toMatch(/^\.{2,}V$/);
      expect(cap.events("watchdog.close")[0]!.why).toBe("planned reboot");
      // The flush line precedes the close line.
      const order = cap.lines.map((l) => JSON.parse(l).event).filter((e) => e === "remotelog.flush" || e === "watchdog.close");
      expect(order).toEqual(["remotelog.flush", "watchdog.close"]);

      const st = JSON.parse(readFileSync(statusPath, "utf8"));
      expect(statSync(statusPath).mode & 0o777).toBe(0o644);
      expect(st).toMatchObject({
        stage: "wait",
        clock: { decision: "step", offsetMs: expect.any(Number) },
        watchdog: { state: "closed" },
        remoteLog: { state: "shipping", dropped: 0 },
      });
      expect(st.plannedReboot.at).toBe(new Date(now + 30 * 3_600_000).toISOString());
    } finally {
      loki.stop();
    }
  });

  test("METAL_DEBUG_HANG blocks the whole event loop: pings stop, the process never gets further", async () => {
    const wdFile = join(dir, "hang-watchdog");
    writeFileSync(wdFile, "");
    const script = join(dir, "hang.ts");
    writeFileSync(
      script,
      `import { Operations } from ${JSON.stringify(join(import.meta.dir, "../../../src/ops/operations/operations.ts"))};
import { SecretSet } from ${JSON.stringify(join(import.meta.dir, "../../../src/platform/log/redact.ts"))};
import { openWatchdogDevice } from ${JSON.stringify(join(import.meta.dir, "../../../src/platform/sys/watchdog-device.ts"))};
import { silentLogger } from ${JSON.stringify(join(import.meta.dir, "../../../src/platform/log/logger.ts"))};
const ops = new Operations({ secrets: new SecretSet(), statusPath: ${JSON.stringify(join(dir, "hang-status.json"))} });
const log = silentLogger();
ops.startWatchdog({ enabled: true, timeoutS: 5 }, log, { path: ${JSON.stringify(wdFile)}, open: openWatchdogDevice });
// A long wait under hold(): pings every ~1.7 s while the event loop runs.
void ops.hold(new Promise(() => {}), 60_000);
setTimeout(async () => { console.log("stage wait"); await ops.stage("wait", log, "wait"); console.log("not reached"); }, 4000);
`,
    );
    const p = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    try {
      let out = "";
      const reader = p.stdout.getReader();
      await waitFor(
        async () => {
          const { value } = await reader.read();
          if (value) out += new TextDecoder().decode(value);
          return out.includes("stage wait");
        },
        20_000,
        "the child to reach stage wait",
      );
      const pingsAtHang = readFileSync(wdFile, "utf8").length;
      expect(pingsAtHang).toBeGreaterThanOrEqual(3);
      // Longer than two ping intervals of the running hold(): no ping arrives, the child is alive and stuck.
      const t0 = performance.now();
      await waitFor(() => performance.now() - t0 > 5000 || p.exitCode !== null, 10_000, "5 s to pass with the child stuck", 200);
      expect(p.exitCode).toBeNull();
      expect(readFileSync(wdFile, "utf8").length).toBe(pingsAtHang);
      expect(readFileSync(wdFile, "utf8")).not.toContain("V");
      expect(JSON.parse(readFileSync(join(dir, "hang-status.json"), "utf8")).stage).toBe("wait");
    } finally {
      p.kill("SIGKILL");
    }
  }, 40_000);
});

describe("METAL_DEBUG_HANG's last line", () => {
  /** A logger whose output is asynchronous like the agent's (platform/log/output.ts): lines wait in `queued` until flushed. */
  const asyncLogger = (flushes: boolean) => {
    const queued: string[] = [];
    const written: string[] = [];
    const log = createLogger({
      level: "info",
      format: "json",
      secrets: new SecretSet(),
      write: (l) => queued.push(l),
      flush: () => (flushes ? new Promise<void>((r) => setTimeout(() => (written.push(...queued.splice(0)), r()), 50)) : new Promise<void>(() => {})),
    });
    return { log, queued, written };
  };
  const hangOps = (name: string, onHang: () => void) => {
    const ops = new Operations({ secrets: new SecretSet(), statusPath: join(dir, `${name}.json`), hang: onHang, hangFlushMs: 300 });
    return ops;
  };

  test("the line saying so is written out before the agent blocks; pings stop first", async () => {
    const { log, written } = asyncLogger(true);
    let atHang: string[] | undefined;
    const ops = hangOps("hang-flush", () => (atHang = [...written]));
    const wdFile = join(dir, "hang-flush-watchdog");
    writeFileSync(wdFile, "");
    ops.startWatchdog({ enabled: true, timeoutS: 5 }, log, { path: wdFile, open: openWatchdogDevice });
    expect(ops.stage("boot", log, "wait")).toBeUndefined();
    const pending = ops.stage("wait", log, "wait");
    expect(pending).toBeInstanceOf(Promise);
    expect(atHang).toBeUndefined();
    await pending;
    const hang = atHang!.map((l) => JSON.parse(l)).find((r) => r.debugHang);
    expect(hang).toMatchObject({ event: "agent.stage", stage: "wait", debugHang: true });
    expect(hang.msg).toBe("METAL_DEBUG_HANG=wait: the agent hangs here on purpose; the hardware watchdog (armed, the driver's default timeout) must reset the machine");
    const pings = readFileSync(wdFile, "utf8");
    ops.pet();
    await ops.hold(Promise.resolve(), 1000);
    expect(readFileSync(wdFile, "utf8")).toBe(pings);
  });

  test("a log destination that never drains delays the hang by the bound only", async () => {
    const { log } = asyncLogger(false);
    let hung = false;
    const ops = hangOps("hang-stuck", () => (hung = true));
    const t0 = performance.now();
    ops.startWatchdog({ enabled: false, timeoutS: 60 }, log, {});
    await ops.stage("wait", log, "wait");
    expect(hung).toBe(true);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
});

describe("re-sync from the config's ntp_servers", () => {
  test("valid entries are asked, invalid ones skipped with a warning", async () => {
    const ops = new Operations({ secrets: new SecretSet(), statusPath: join(dir, "s3.json") });
    const cap = capturingLogger();
    const now = () => Date.parse("2026-12-01T00:00:00Z");
    const set: number[] = [];
    const st = await ops.resyncFromConfig(["year", "not a server!"], cap.log, { sntp: sntp(now), setClock: (t) => (set.push(t), 0), rtcPresent: () => false });
    expect(st).toMatchObject({ decision: "step", servers: ["year:123"], rtc: "absent" });
    expect(set).toHaveLength(1);
    expect(cap.events("clock.reject")[0]!.msg).toBe('config ntp_servers: "not a server!" is not an address or host name; skipped');
    expect(cap.events("clock.rtc")[0]!.msg).toBe("no /dev/rtc0: the hardware clock is not written (the next boot starts from the old time again)");
  });
});
