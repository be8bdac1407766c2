/**
 * The watchdog core with a fake device, and the real bun:ffi binding against a fake
 * device *file*: this host has no /dev/watchdog, and its kernel (6.18, no module tree)
 * cannot load softdog; a real watchdog device is never opened by these tests.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWatchdogDevice, type WatchdogDevice } from "../../../src/platform/sys/watchdog-device.ts";
import { planWatchdog } from "../../../src/ops/watchdog/watchdog-plan.ts";
import { startWatchdog } from "../../../src/ops/watchdog/start-watchdog.ts";
import type { WatchdogClock } from "../../../src/ops/watchdog/watchdog.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";

function fakeDevice(opts: { accept?: number; pingErr?: number } = {}): WatchdogDevice & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    setTimeout: (s) => (calls.push(`timeout ${s}`), opts.accept ?? s),
    ping: () => (calls.push("ping"), opts.pingErr ?? 0),
    magicClose: () => (calls.push("V"), 0),
  };
}

/** A clock whose time and interval timers the test drives. */
function fakeClock(): WatchdogClock & { advance(ms: number): void; timers: number } {
  let now = 1_000_000;
  const intervals = new Map<number, { fn: () => void; ms: number; next: number }>();
  let id = 0;
  return {
    now: () => now,
    setInterval: (fn, ms) => (intervals.set(++id, { fn, ms, next: now + ms }), id),
    clearInterval: (h) => void intervals.delete(h as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...intervals.values()].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        due.fn();
      }
      now = end;
    },
    get timers() {
      return intervals.size;
    },
  };
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("the watchdog plan", () => {
  test("on by default when the device exists; off with METAL_WATCHDOG=0 or without a device", () => {
    expect(planWatchdog({ enabled: true, timeoutS: 60 }, "/dev/watchdog", true)).toEqual({ kind: "use", path: "/dev/watchdog", timeoutS: 60 });
    expect(planWatchdog({ enabled: false, timeoutS: 60 }, "/dev/watchdog", true)).toEqual({ kind: "off", reason: "METAL_WATCHDOG=0" });
    expect(planWatchdog({ enabled: true, timeoutS: 60 }, "/dev/watchdog", false)).toEqual({ kind: "off", reason: "no /dev/watchdog (no watchdog driver loaded)" });
  });
});

describe("the watchdog", () => {
  test("armed: the timeout is set, the first ping follows, one line says so", () => {
    const dev = fakeDevice();
    const cap = capturingLogger();
    const w = startWatchdog({ enabled: true, timeoutS: 45 }, { log: cap.log, exists: () => true, open: () => dev, clock: fakeClock() });
    expect(dev.calls).toEqual(["timeout 45", "ping"]);
    expect(w.status).toMatchObject({ state: "armed", device: "/dev/watchdog", timeoutS: 45, pets: 1 });
    expect(cap.events("watchdog.open")[0]!.msg).toContain("armed (timeout 45 s)");
  });

  test("the timeout the driver chose is the one reported", () => {
    const w = startWatchdog({ enabled: true, timeoutS: 45 }, { log: capturingLogger().log, exists: () => true, open: () => fakeDevice({ accept: 30 }), clock: fakeClock() });
    expect(w.status.timeoutS).toBe(30);
  });

  test("pet() pings at most once a second", () => {
    const dev = fakeDevice();
    const clock = fakeClock();
    const w = startWatchdog({ enabled: true, timeoutS: 60 }, { log: capturingLogger().log, exists: () => true, open: () => dev, clock });
    w.pet();
    w.pet();
    clock.advance(1000);
    w.pet();
    expect(dev.calls.filter((c) => c === "ping")).toHaveLength(2);
  });

  test("no free-running timer: nothing pings between the flow's pet() calls", () => {
    const dev = fakeDevice();
    const clock = fakeClock();
    startWatchdog({ enabled: true, timeoutS: 60 }, { log: capturingLogger().log, exists: () => true, open: () => dev, clock });
    expect(clock.timers).toBe(0);
    clock.advance(10 * 60_000);
    expect(dev.calls.filter((c) => c === "ping")).toHaveLength(1);
  });

  test("hold() pets through a long wait, but not past the wait's own bound", async () => {
    const dev = fakeDevice();
    const clock = fakeClock();
    const w = startWatchdog({ enabled: true, timeoutS: 60 }, { log: capturingLogger().log, exists: () => true, open: () => dev, clock });
    let release: () => void = () => {};
    const stuck = new Promise<void>((r) => (release = r));
    const held = w.hold(stuck, 5 * 60_000);
    clock.advance(5 * 60_000);
    const petsInBound = dev.calls.filter((c) => c === "ping").length;
    // every 20 s (a third of 60 s) for 5 min, plus the first pings
    expect(petsInBound).toBeGreaterThanOrEqual(15);
    clock.advance(10 * 60_000);
    expect(dev.calls.filter((c) => c === "ping").length).toBe(petsInBound);
    expect(clock.timers).toBe(0);
    release();
    await held;
  });

  test("abandon() (METAL_DEBUG_HANG): no ping after it, not from a running hold() either; the device stays armed", async () => {
    const dev = fakeDevice();
    const clock = fakeClock();
    const w = startWatchdog({ enabled: true, timeoutS: 60 }, { log: capturingLogger().log, exists: () => true, open: () => dev, clock });
    let release: () => void = () => {};
    const held = w.hold(new Promise<void>((r) => (release = r)), 10 * 60_000);
    clock.advance(60_000);
    const before = dev.calls.filter((c) => c === "ping").length;
    expect(before).toBeGreaterThanOrEqual(3);
    w.abandon();
    clock.advance(5 * 60_000);
    w.pet();
    expect(dev.calls.filter((c) => c === "ping").length).toBe(before);
    expect(dev.calls).not.toContain("V");
    expect(w.status.state).toBe("armed");
    release();
    await held;
  });

  test("close() writes the magic character once; later pets do nothing", () => {
    const dev = fakeDevice();
    const cap = capturingLogger();
    const clock = fakeClock();
    const w = startWatchdog({ enabled: true, timeoutS: 60 }, { log: cap.log, exists: () => true, open: () => dev, clock });
    w.close("kexec");
    w.close("kexec");
    clock.advance(5000);
    w.pet();
    expect(dev.calls).toEqual(["timeout 60", "ping", "V"]);
    expect(w.status).toMatchObject({ state: "closed", reason: "kexec" });
    expect(cap.events("watchdog.close")).toHaveLength(1);
  });

  test("a failing ping is logged once, not on every pet", () => {
    const dev = fakeDevice({ pingErr: 5 });
    const cap = capturingLogger();
    const clock = fakeClock();
    const w = startWatchdog({ enabled: true, timeoutS: 60 }, { log: cap.log, exists: () => true, open: () => dev, clock });
    for (let i = 0; i < 5; i++) {
      clock.advance(2000);
      w.pet();
    }
    expect(cap.events("watchdog.error")).toHaveLength(1);
    expect(cap.events("watchdog.error")[0]!.msg).toBe("/dev/watchdog: ping failed (EIO)");
  });

  test("METAL_WATCHDOG=0: the device is not even opened", () => {
    let opened = false;
    const cap = capturingLogger();
    const w = startWatchdog({ enabled: false, timeoutS: 60 }, { log: cap.log, exists: () => true, open: () => ((opened = true), fakeDevice()) });
    expect(opened).toBe(false);
    expect(w.status).toMatchObject({ state: "off", reason: "METAL_WATCHDOG=0" });
    expect(cap.events("watchdog.off")[0]!.msg).toBe("no hardware watchdog: METAL_WATCHDOG=0");
  });

  test("a device that cannot be opened: logged, the agent runs without", () => {
    const cap = capturingLogger();
    const w = startWatchdog({ enabled: true, timeoutS: 60 }, { log: cap.log, exists: () => true, open: () => 16 });
    expect(w.status).toMatchObject({ state: "off", reason: "cannot open /dev/watchdog: EBUSY" });
  });
});

describe("the bun:ffi binding on a fake device file", () => {
  test("pings write '.', the magic close writes 'V'; WDIOC_SETTIMEOUT on a plain file fails (ENOTTY) and the driver default is reported", () => {
    const dir = mkdtempSync(join(tmpdir(), "mh-wdog-"));
    dirs.push(dir);
    const path = join(dir, "watchdog");
    writeFileSync(path, "");
    const cap = capturingLogger();
    const clock = fakeClock();
    const w = startWatchdog({ enabled: true, timeoutS: 60 }, { log: cap.log, path, open: openWatchdogDevice, clock });
    clock.advance(1000);
    w.pet();
    w.close("reboot");
    expect(readFileSync(path, "utf8")).toBe("..V");
    expect(cap.events("watchdog.error")[0]).toMatchObject({ op: "WDIOC_SETTIMEOUT", errno: "ENOTTY" });
    expect(w.status).toMatchObject({ state: "closed", pets: 2 });
    expect(w.status.timeoutS).toBeUndefined();
  });

  test("a missing device path is an errno, not an exception", () => {
    expect(openWatchdogDevice("/nonexistent/watchdog")).toBe(2);
  });
});
