import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { events, MAIN } from "./agent.ts";
import { SKIP, withLab } from "./lab.ts";

const hash = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

describe.skipIf(SKIP !== undefined)("run: the network stage", () => {
  test("brings the METAL_NICS interface up with the cmdline's policy and timeout, then the flow goes on", async () => {
    const before = hash("/etc/resolv.conf");
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "no-dns.conf"); // no RA DNS: nothing is written to the real /etc/resolv.conf
      const cmdline = `METAL_BOOT_URL=https://[2001:db8::10]/ METAL_NICS=${l.mac} METAL_NET_TIMEOUT=20s METAL_NET_FAST=1`;
      const p = Bun.spawn(["ip", "netns", "exec", lab.agentNs, process.execPath, MAIN, "run", "--cmdline", cmdline], { stdout: "pipe", stderr: "pipe" });
      const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
      const logs = err.split("\n").filter((x) => x.startsWith("{")).map((x) => JSON.parse(x) as Record<string, unknown>);
      expect(code).toBe(0);
      expect(events(logs, "net.select")[0]?.selected).toEqual([l.agentIf]);
      expect(events(logs, "net.ready")).toHaveLength(1);
      const done = events(logs, "agent.done")[0] as { stageTimesMs: Record<string, number> } | undefined;
      expect(done?.stageTimesMs.network).toBeGreaterThan(0);
    });
    expect(hash("/etc/resolv.conf")).toBe(before);
  }, 30_000);
});
