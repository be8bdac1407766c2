import { describe, expect, test } from "bun:test";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

// Every case here fails validation before any socket, sysctl or link is touched.
async function usage(args: string[]): Promise<string> {
  const c = captureContext();
  expect(await runCli(args, c.ctx)).toBe(2);
  return c.err();
}

describe("net command: bad input is a usage error (exit 2) naming the flag", () => {
  test("--policy outside any|all", async () => expect(await usage(["net", "up", "--policy", "some"])).toContain('--policy "some": expected any or all'));
  test("--timeout that is not a duration", async () => expect(await usage(["net", "up", "--timeout", "5x"])).toContain('--timeout "5x": expected a duration'));
  test("--carrier-timeout of zero", async () => expect(await usage(["net", "up", "--carrier-timeout", "0"])).toContain('--carrier-timeout "0": expected a duration'));
  test("--interfaces with a name that cannot be an interface", async () => expect(await usage(["net", "up", "--interfaces", "eth0,bad name!"])).toContain("--interfaces"));
  test("--log-level that is not a level", async () =>
    expect(await usage(["net", "up", "--log-level", "bogus"])).toContain('--log-level "bogus": expected trace, debug, info, warn, error or fatal'));
  test("net watch --duration that is not a duration", async () => expect(await usage(["net", "watch", "--duration", "soon"])).toContain('--duration "soon"'));
  test("an unknown subcommand", async () => {
    const c = captureContext();
    expect(await runCli(["net", "down"], c.ctx)).toBe(2);
  });
});
