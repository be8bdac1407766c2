import { describe, expect, test } from "bun:test";
import { runCli } from "../../src/cli/program.ts";
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
