import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SKIP, withLab } from "./lab.ts";

describe.skipIf(SKIP !== undefined)("event socket overrun", () => {
  test("when the kernel drops events (ENOBUFS) the reader reports an overrun and keeps delivering", async () => {
    await withLab(async (lab) => {
      const p = Bun.spawnSync(["ip", "netns", "exec", lab.agentNs, process.execPath, join(import.meta.dir, "overrun-probe.ts")], { stdout: "pipe", stderr: "pipe" });
      expect(p.exitCode).toBe(0);
      const r = JSON.parse(p.stdout.toString()) as { overruns: number; links: number; after: number; failed: string | null };
      expect(r.failed).toBeNull();
      expect(r.overruns).toBeGreaterThan(0);
      expect(r.after).toBeGreaterThan(0);
    });
  }, 30_000);

  test("a consumer slower than the events: the queue stops at its cap, the rest is an overrun (re-dump), delivery goes on", async () => {
    await withLab(async (lab) => {
      const p = Bun.spawnSync(["ip", "netns", "exec", lab.agentNs, process.execPath, join(import.meta.dir, "overrun-probe.ts"), "queue"], { stdout: "pipe", stderr: "pipe" });
      expect(p.exitCode).toBe(0);
      const r = JSON.parse(p.stdout.toString()) as { overruns: number; links: number; after: number; failed: string | null; maxPending: number; cap: number };
      expect(r.failed).toBeNull();
      expect(r.maxPending).toBeGreaterThan(0);
      expect(r.maxPending).toBeLessThanOrEqual(r.cap);
      expect(r.overruns).toBe(1); // one overrun stands for every datagram dropped before it is taken
      expect(r.links).toBeLessThan(300); // 150 veth pairs: 300 new links were announced
      expect(r.after).toBeGreaterThan(0);
    });
  }, 30_000);
});
