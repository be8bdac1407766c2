import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SKIP, withLab } from "./lab.ts";

const BINARY = join(import.meta.dir, "../../../dist/metal-hammer");

describe.skipIf(SKIP !== undefined || !existsSync(BINARY))("the compiled binary (dist/metal-hammer, built by make build)", () => {
  test("runs net up: the event Worker is inside the binary", async () => {
    await withLab(async (lab) => {
      const l = lab.addLink();
      await lab.radvd(l, "slaac.conf");
      const p = Bun.spawnSync(
        ["ip", "netns", "exec", lab.agentNs, BINARY, "net", "up", "--interfaces", l.agentIf, "--fast", "--timeout", "20s", "--resolv-conf", join(lab.dir, "resolv.conf"), "--json"],
        { stdout: "pipe", stderr: "pipe" },
      );
      expect(p.exitCode).toBe(0);
      expect((JSON.parse(p.stdout.toString()) as { ready: string[] }).ready).toEqual([l.agentIf]);
    });
  }, 30_000);
});
