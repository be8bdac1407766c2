import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../../src/cli/program.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { clockSection, remoteLogSection, statusLines, uplinksSection, watchdogSection, wipeSection } from "../../../src/ops/status/sections.ts";
import { StatusWriter } from "../../../src/ops/status/status-file.ts";
import { captureContext } from "../../helpers/capture.ts";

const dir = mkdtempSync(join(tmpdir(), "mh-status-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = "loki-password-that-must-not-leak";

function writeSample(path: string): void {
  const secrets = new SecretSet();
  secrets.add(SECRET);
  let now = Date.parse("2026-12-01T01:00:00Z");
  const w = new StatusWriter(path, secrets, () => now, 1000);
  w.update({ stage: "wait" });
  now += 10;
  w.update({
    clock: clockSection({ servers: ["[fd00::123]:123"], decision: "step", offsetMs: 31_536_000_000, server: "[fd00::123]:123", syncedAt: now, rtc: "written" }),
    watchdog: watchdogSection({ state: "armed", device: "/dev/watchdog", timeoutS: 60, pets: 12, lastPetAt: now }),
    remoteLog: remoteLogSection({ state: "failing", sent: 120, dropped: 7, failedPushes: 3, queued: 40, lastError: `http://loki: HTTP 401 ${SECRET}` }),
    plannedReboot: { at: "2026-12-02T13:00:00.000Z" },
    token: { kind: "jwt", expiresAt: "2026-12-04T01:00:00.000Z", renewals: 1, renewedAt: "2026-12-01T01:00:00.010Z" },
  });
  w.flush();
}

describe("the status file and `metal-hammer status`", () => {
  test("the file is 0644, rewritten atomically, and carries no secret", () => {
    const path = join(dir, "run/metal/status.json");
    writeSample(path);
    expect(statSync(path).mode & 0o777).toBe(0o644);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toMatchObject({ version: 1, stage: "wait", remoteLog: { dropped: 7, lastError: "http://loki: HTTP 401 [redacted]" } });
  });

  test("status prints stage, clock offset and last sync, watchdog, shipping counters, planned reboot, the token's expiry", async () => {
    const path = join(dir, "a.json");
    writeSample(path);
    const c = captureContext({ [path]: readFileSync(path) });
    expect(await runCli(["status", "--file", path], c.ctx)).toBe(0);
    expect(c.out()).toBe(
      [
        "stage           wait",
        "clock           stepped: was 365 d behind of [fd00::123]:123, last sync 2026-12-01T01:00:00.010Z; RTC written",
        "watchdog        armed: /dev/watchdog, timeout 60 s, 12 ping(s), last 2026-12-01T01:00:00.010Z",
        "remote log      failing: 120 sent, 7 dropped, 40 queued, 3 failed push(es), last error: http://loki: HTTP 401 [redacted]",
        "uplinks         not known yet",
        "planned reboot  2026-12-02T13:00:00.000Z",
        "machine token   jwt, expires 2026-12-04T01:00:00.000Z; renewed 1 time(s), last 2026-12-01T01:00:00.010Z",
        `updated         2026-12-01T01:00:00.010Z (agent pid ${process.pid})`,
        "",
      ].join("\n"),
    );
  });

  test("after a wipe: each disk's record (method, duration, zeroes verified, locked) in the file and the status line", () => {
    const path = join(dir, "w.json");
    const w = new StatusWriter(path, new SecretSet(), () => Date.parse("2026-12-01T01:00:00Z"), 0);
    const base = { sizeBytes: 1, reason: undefined, attempts: [], notes: [] };
    w.update({
      wipe: wipeSection({
        mode: "fast",
        durationMs: 131_000,
        disks: [
          { ...base, disk: "sda", path: "/dev/sda", outcome: "wiped", method: "ata-security-erase", zeroesChecked: true, locked: false, durationMs: 130_400 },
          {
            ...base,
            disk: "sdb",
            path: "/dev/sdb",
            outcome: "failed",
            method: "ata-security-erase-enhanced",
            reason: "after ...",
            zeroesChecked: false,
            locked: true,
            durationMs: 90_000,
          },
        ],
      }),
    });
    w.flush();
    const doc = JSON.parse(readFileSync(path, "utf8"));
    expect(doc.wipe.disks[0]).toEqual({ disk: "sda", outcome: "wiped", method: "ata-security-erase", durationMs: 130_400, zeroesChecked: true, locked: false });
    expect(statusLines(doc).find(([k]) => k === "wipe")?.[1]).toBe(
      "fast, 131.0 s: sda ata-security-erase 130.4 s zeroes verified; sdb failed (ATA-locked) at ata-security-erase-enhanced",
    );
  });

  test("each uplink's state and last error: the preferred one, the one that failed, one dropped", async () => {
    const path = join(dir, "uplinks.json");
    const at = Date.parse("2026-12-01T01:00:00Z");
    const w = new StatusWriter(path, new SecretSet(), () => at, 1000);
    const eth0 = { name: "eth0", address: "2001:db8:1::5", router: "fe80::a", preference: "high", up: true };
    const eth1 = { name: "eth1", address: "2001:db8:2::5", router: "fe80::b", preference: "low", up: true };
    const eth2 = { name: "eth2", address: "2001:db8:3::5", router: "fe80::c", preference: "medium", up: false };
    const failed = { ok: false, at, error: "no connection within the connect-attempt delay of 300 ms" };
    const outcomes = new Map<string, { ok: boolean; at: number; error?: string }>([
      ["eth0", failed],
      ["eth1", { ok: true, at: at + 300 }],
    ]);
    w.update({ uplinks: uplinksSection([eth0, eth1, eth2], outcomes, new Map([["eth0", failed]]), "eth1") });
    w.flush();
    expect(JSON.parse(readFileSync(path, "utf8")).uplinks).toEqual([
      { name: "eth0", state: "failing", address: "2001:db8:1::5", router: "fe80::a", preference: "high", lastError: failed.error, lastErrorAt: "2026-12-01T01:00:00.000Z" },
      { name: "eth1", state: "preferred", address: "2001:db8:2::5", router: "fe80::b", preference: "low", lastOkAt: "2026-12-01T01:00:00.300Z" },
      { name: "eth2", state: "dropped", address: "2001:db8:3::5", router: "fe80::c", preference: "medium" },
    ]);
    const c = captureContext({ [path]: readFileSync(path) });
    expect(await runCli(["status", "--file", path], c.ctx)).toBe(0);
    expect(c.out()).toContain(
      [
        "uplink eth0     failing: 2001:db8:1::5 via fe80::a (high), last error 2026-12-01T01:00:00.000Z: no connection within the connect-attempt delay of 300 ms",
        "uplink eth1     preferred: 2001:db8:2::5 via fe80::b (low)",
        "uplink eth2     dropped: 2001:db8:3::5 via fe80::c (medium)",
      ].join("\n"),
    );
  });

  test("status --json prints the document", async () => {
    const path = join(dir, "b.json");
    writeSample(path);
    const c = captureContext({ [path]: readFileSync(path) });
    expect(await runCli(["status", "--json", "--file", path], c.ctx)).toBe(0);
    expect(JSON.parse(c.out())).toMatchObject({ stage: "wait", clock: { decision: "step", offsetMs: 31_536_000_000 }, watchdog: { state: "armed", pets: 12 } });
  });

  test("no status file: exit 2 naming the file and what is expected", async () => {
    const c = captureContext();
    expect(await runCli(["status", "--file", "/run/metal/nope.json"], c.ctx)).toBe(2);
    expect(c.err()).toBe(
      "metal-hammer: cannot read the status file /run/metal/nope.json (ENOENT): expected the file the running agent writes (it appears once the agent has started; --file PATH for another one)\n",
    );
  });

  test("a file that is not a status document: exit 2 naming the field", async () => {
    const c = captureContext({ "/x.json": JSON.stringify({ version: 1 }), "/y.json": "garbage" });
    expect(await runCli(["status", "--file", "/x.json"], c.ctx)).toBe(2);
    expect(c.err()).toStartWith("metal-hammer: the status file /x.json is not a metal-hammer status document (updatedAt: ");
    expect(await runCli(["status", "--file", "/y.json"], c.ctx)).toBe(2);
    expect(c.err()).toContain("/y.json is not a metal-hammer status document (not JSON)");
  });

  test("writes are rate-limited but the last change always lands", async () => {
    const path = join(dir, "c.json");
    const w = new StatusWriter(path, new SecretSet(), Date.now, 200);
    w.update({ stage: "network" });
    w.update({ stage: "boot" });
    w.update({ stage: "api" });
    expect(JSON.parse(readFileSync(path, "utf8")).stage).toBe("network");
    const { waitFor } = await import("../../../lab/base/wait.ts");
    await waitFor(() => JSON.parse(readFileSync(path, "utf8")).stage === "api", 3000, "the last stage in the file");
  });
});
