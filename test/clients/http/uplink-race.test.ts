/** Happy Eyeballs over uplinks, driven by a manual timer and hand-settled attempts: no real waiting. */
import { describe, expect, test } from "bun:test";
import { AllUplinksFailed, raceUplinks, type ConnectAttempt, type RaceTimer } from "../../../src/clients/http/uplink-race.ts";

class ManualTimer implements RaceTimer {
  readonly due: { fn: () => void; ms: number; live: boolean }[] = [];
  set(fn: () => void, ms: number): unknown {
    const h = { fn, ms, live: true };
    this.due.push(h);
    return h;
  }
  clear(h: unknown): void {
    if (h) (h as { live: boolean }).live = false;
  }
  /** Fires every live timer (the delay has run out). */
  fire(): void {
    for (const h of this.due.splice(0)) if (h.live) h.fn();
  }
}

/** Attempts the test settles by hand; what was started and cancelled, in order. */
function attempts() {
  const started: string[] = [];
  const cancelled: string[] = [];
  const settle = new Map<string, { ok: (s: string) => void; fail: (e: Error) => void }>();
  const start = (u: string): ConnectAttempt<string> => {
    started.push(u);
    const result = new Promise<string>((ok, fail) => settle.set(u, { ok, fail }));
    return { result, cancel: () => cancelled.push(u) };
  };
  return { started, cancelled, start, settle: (u: string) => settle.get(u)! };
}
const tick = () => new Promise((r) => setImmediate(r));

describe("raceUplinks", () => {
  test("the first uplink connects in time: only it is tried, no delay timer left running", async () => {
    const t = new ManualTimer();
    const a = attempts();
    const race = raceUplinks(["eth0", "eth1"], a.start, 300, t);
    a.settle("eth0").ok("s0");
    expect(await race).toEqual({ winner: "eth0", socket: "s0", failed: [], pending: [] });
    expect(a.started).toEqual(["eth0"]);
    expect(t.due.every((h) => !h.live)).toBe(true);
  });

  test("a silent first uplink: the second starts when the connect-attempt delay runs out (300 ms), wins, and the first is cancelled", async () => {
    const t = new ManualTimer();
    const a = attempts();
    const race = raceUplinks(["eth0", "eth1"], a.start, 300, t);
    expect(a.started).toEqual(["eth0"]);
    expect(t.due.map((h) => h.ms)).toEqual([300]);
    t.fire();
    expect(a.started).toEqual(["eth0", "eth1"]);
    a.settle("eth1").ok("s1");
    expect(await race).toEqual({ winner: "eth1", socket: "s1", failed: [], pending: ["eth0"] });
    expect(a.cancelled).toEqual(["eth0"]);
  });

  test("a first uplink that fails at once: the next starts at once, without waiting for the delay", async () => {
    const t = new ManualTimer();
    const a = attempts();
    const race = raceUplinks(["eth0", "eth1"], a.start, 300, t);
    const refused = Object.assign(new Error("connect ENETUNREACH"), { code: "ENETUNREACH" });
    a.settle("eth0").fail(refused);
    await tick();
    expect(a.started).toEqual(["eth0", "eth1"]);
    a.settle("eth1").ok("s1");
    expect(await race).toEqual({ winner: "eth1", socket: "s1", failed: [{ uplink: "eth0", error: refused }], pending: [] });
  });

  test("a loser that connects after the winner is closed", async () => {
    const t = new ManualTimer();
    const a = attempts();
    const race = raceUplinks(["eth0", "eth1"], a.start, 300, t);
    t.fire();
    a.settle("eth1").ok("s1");
    await race;
    a.settle("eth0").ok("s0");
    await tick();
    expect(a.cancelled).toEqual(["eth0", "eth0"]);
  });

  test("every uplink fails: AllUplinksFailed with each failure in order, the first uplink's error as the cause", async () => {
    const t = new ManualTimer();
    const a = attempts();
    const race = raceUplinks(["eth0", "eth1"], a.start, 300, t);
    t.fire();
    const e0 = new Error("timeout 0");
    const e1 = new Error("timeout 1");
    a.settle("eth1").fail(e1);
    await tick();
    a.settle("eth0").fail(e0);
    const err = (await race.catch((e: unknown) => e)) as AllUplinksFailed<string>;
    expect(err).toBeInstanceOf(AllUplinksFailed);
    expect(err.failed.map((f) => f.uplink)).toEqual(["eth1", "eth0"]);
    expect(err.cause).toBe(e1);
  });
});
