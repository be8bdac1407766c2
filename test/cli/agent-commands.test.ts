import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentConfig, agentServices } from "../../src/cli/agent-options.ts";
import { runCli } from "../../src/cli/program.ts";
import { silentLogger } from "../../src/platform/log/logger.ts";
import { captureContext } from "../helpers/capture.ts";

const CL = "METAL_BOOT_URL=https://[fd00::1]:8443/";

describe("token, reach and run options", () => {
  test("--help works for token and reach and names the shared options", async () => {
    for (const cmd of ["token", "reach"]) {
      const c = captureContext();
      expect(await runCli([cmd, "--help"], c.ctx)).toBe(0);
      for (const opt of ["--cmdline", "--file", "--uuid", "--json"]) expect(c.out()).toContain(opt);
    }
  });

  test("a malformed --uuid is a usage error naming the option", async () => {
    const c = captureContext();
    expect(await runCli(["token", "--cmdline", CL, "--uuid", "not a uuid!"], c.ctx)).toBe(2);
    expect(c.err()).toBe('metal-hammer: --uuid "not a uuid!": expected a machine UUID (8-4-4-4-12 hex digits; the apiserver takes nothing else)\n');
  });

  test("run --from an unknown stage lists the stages", async () => {
    const c = captureContext();
    expect(await runCli(["run", "--cmdline", CL, "--from", "nope"], c.ctx)).toBe(2);
    expect(c.err()).toBe(
      'metal-hammer: --from "nope": expected one of network, boot, register, wait (register and wait resume from handoff.json and the token file in --run-dir)\n',
    );
  });

  test("without a uuid anywhere, token says where it looked (exit 20)", async () => {
    const c = captureContext();
    expect(await runCli(["token", "--cmdline", CL, "--sysfs", "/nonexistent-sysfs"], c.ctx)).toBe(20);
    expect(c.err()).toContain("/nonexistent-sysfs/class/dmi/id/product_uuid");
    expect(c.err()).toContain("METAL_UUID=");
  });
});

describe("the composition root", () => {
  test("the installer's console is the cmdline's last console=, from the one parsed configuration", async () => {
    const c = captureContext({ "/tmp/mh-cl": `console=tty0 ${CL} console="ttyS1,115200n8" METAL_WATCHDOG=0` });
    const config = await agentConfig(c.ctx, { file: "/tmp/mh-cl" });
    const s = agentServices(c.ctx, { runDir: mkdtempSync(join(tmpdir(), "mh-root-")) }, config, silentLogger());
    try {
      expect(s.console).toBe("ttyS1,115200n8");
    } finally {
      await s.http.close();
    }
  });
  test("without console= on the cmdline, the installer's console follows the manufacturer (sys_vendor) as pixie's boot script does", async () => {
    const c = captureContext({ "/tmp/mh-cl": `${CL} METAL_WATCHDOG=0` });
    const config = await agentConfig(c.ctx, { file: "/tmp/mh-cl" });
    for (const [vendor, want] of [
      ["QEMU\n", "ttyS0"],
      ["Dell Inc.\n", "ttyS0"],
      ["Supermicro\n", "ttyS1"],
      [undefined, "ttyS1"],
    ] as const) {
      const sys = mkdtempSync(join(tmpdir(), "mh-sys-"));
      if (vendor !== undefined) {
        mkdirSync(join(sys, "class/dmi/id"), { recursive: true });
        writeFileSync(join(sys, "class/dmi/id/sys_vendor"), vendor);
      }
      const s = agentServices(c.ctx, { runDir: mkdtempSync(join(tmpdir(), "mh-root-")), sysfs: sys }, config, silentLogger());
      try {
        expect([vendor, s.console]).toEqual([vendor, want]);
      } finally {
        await s.http.close();
        rmSync(sys, { recursive: true, force: true });
      }
    }
  });
});
