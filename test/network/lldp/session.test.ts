/**
 * The session's waiting rules, without sockets (no NIC: nothing to open, so no root
 * needed). What it sees on real links is tested in test/integration/lldp/.
 */
import { expect, test } from "bun:test";
import { startLldp } from "../../../src/network/lldp/session.ts";
import { memoryLog } from "./log.ts";

const start = () => {
  const m = memoryLog();
  return { m, s: startLldp({ interfaces: [], systemName: "00000000-0000-0000-0000-000000000001", log: m.log, fwAgent: false }) };
};

test("waitForSwitches resolves at its timeout with what was seen, and says what it waited for", async () => {
  const { m, s } = start();
  try {
    const t0 = performance.now();
    const seen = await s.waitForSwitches(2, 300);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(seen.size).toBe(0);
    const recs = m.records();
    expect(recs.find((r) => r.event === "lldp.wait")).toMatchObject({ switches: 2, timeoutMs: 300, msg: "waiting up to 300 ms for LLDP neighbours on 2 distinct switches" });
    expect(recs.find((r) => r.event === "lldp.wait.done")).toMatchObject({ complete: false, switches: [], wanted: 2 });
  } finally {
    await s.close();
  }
});

test("an abort rejects the wait with the signal's reason", async () => {
  const { s } = start();
  try {
    const ac = new AbortController();
    const p = s.waitForSwitches(2, 60_000, ac.signal);
    ac.abort(new Error("shutting down"));
    await expect(p).rejects.toThrow("shutting down");
    const pre = new AbortController();
    pre.abort(new Error("already"));
    await expect(s.waitForSwitches(1, 60_000, pre.signal)).rejects.toThrow("already");
  } finally {
    await s.close();
  }
});

test("close() ends a pending wait with what was seen, and is idempotent", async () => {
  const { m, s } = start();
  const p = s.waitForSwitches(2, 60_000);
  await Promise.all([s.close(), s.close()]);
  expect((await p).size).toBe(0);
  expect(m.records().find((r) => r.event === "lldp.wait.done")).toMatchObject({ complete: false });
});

test("asking for no switch resolves at once, complete", async () => {
  const { m, s } = start();
  try {
    await s.waitForSwitches(0, 60_000);
    expect(m.records().find((r) => r.event === "lldp.wait.done")).toMatchObject({ complete: true });
  } finally {
    await s.close();
  }
});
