import { describe, expect, test } from "bun:test";
import { disklessArgv } from "../../../lab/base/diskless.ts";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../../../lab/base/wait.ts";
import { events, MAIN } from "./agent.ts";
import { SKIP, withLab } from "./lab.ts";

const hash = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

describe.skipIf(SKIP !== undefined)("run: the network stage", () => {
  test("brings the METAL_NICS interface up with the cmdline's policy, timeout and profile, then the next stage starts", async () => {
    const before = hash("/etc/resolv.conf");
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "no-dns.conf"); // no RA DNS: nothing is written to the real /etc/resolv.conf
      const cmdline = `METAL_BOOT_URL=https://[2001:db8::10]/ METAL_NICS=${l.mac} METAL_NET_TIMEOUT=20s METAL_NET_FAST=1 METAL_UUID=00000000-0000-0000-0000-000000000001`;
      const p = Bun.spawn(["ip", "netns", "exec", lab.agentNs, ...disklessArgv([process.execPath, MAIN, "run", "--run-dir", join(lab.dir, "run"), "--cmdline", cmdline])], {
        stdout: "ignore",
        stderr: "pipe",
      });
      const logs: Record<string, unknown>[] = [];
      const reader = (async () => {
        let buf = "";
        for await (const chunk of p.stderr) {
          buf += new TextDecoder().decode(chunk);
          const lines = buf.split("\n");
          buf = lines.pop() ?? "";
          for (const x of lines) if (x.startsWith("{")) logs.push(JSON.parse(x) as Record<string, unknown>);
        }
      })();
      try {
        // The stages after "network" (clock, then metal-boot) begin only once the network stage succeeded;
        // there is no metal-boot in this lab, so the run is stopped there.
        await waitFor(() => events(logs, "agent.stage").some((e) => e.stage === "boot") || p.exitCode !== null, 20_000, "the boot stage after network and clock");
        expect(events(logs, "net.select")[0]?.selected).toEqual([l.agentIf]);
        expect(events(logs, "net.ready")).toHaveLength(1);
        expect(events(logs, "agent.stage").map((e) => e.stage)).toEqual(["network", "clock", "boot"]);
      } finally {
        // SIGKILL: the diskless wrapper's unshare blocks SIGTERM; the namespace dies with it.
        p.kill("SIGKILL");
        await p.exited;
        await reader;
      }
    });
    expect(hash("/etc/resolv.conf")).toBe(before);
  }, 30_000);
});
