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
});
