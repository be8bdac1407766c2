import { describe, expect, test } from "bun:test";
import { runCli } from "../../src/cli/program.ts";
import { captureContext } from "../helpers/capture.ts";

describe("clock command input errors", () => {
  test("no servers anywhere: exit 2 naming both places", async () => {
    const c = captureContext();
    expect(await runCli(["clock", "--cmdline", "METAL_BOOT_URL=https://[fd00::1]/"], c.ctx)).toBe(2);
    expect(c.err()).toBe("metal-hammer: no NTP server: expected --servers LIST or METAL_NTP_SERVERS on the kernel cmdline\n");
  });

  test("a bad list: exit 2 naming where it came from and the value", async () => {
    const c = captureContext();
    expect(await runCli(["clock", "--cmdline", "METAL_NTP_SERVERS=a..b"], c.ctx)).toBe(2);
    expect(c.err()).toBe('metal-hammer: METAL_NTP_SERVERS "a..b": expected a comma-separated list of NTP servers (IPv6/IPv4 addresses or host names, [addr]:port)\n');
  });
});

describe("watchdog test input errors", () => {
  test("no device: exit 2 naming it, nothing armed", async () => {
    const c = captureContext();
    expect(await runCli(["watchdog", "test", "--device", "/nonexistent/watchdog"], c.ctx)).toBe(2);
    expect(c.err()).toContain("metal-hammer: /nonexistent/watchdog: no watchdog to test (no /nonexistent/watchdog (no watchdog driver loaded))\n");
  });

  test("a bad timeout: exit 2", async () => {
    const c = captureContext();
    expect(await runCli(["watchdog", "test", "--timeout", "soon"], c.ctx)).toBe(2);
    expect(c.err()).toBe('metal-hammer: --timeout "soon": expected whole seconds between 1s and 1h, like 10s\n');
  });
});
