import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.ts";
import { EXIT_CODES } from "../../src/platform/exit-codes.ts";
import { captureContext } from "../helpers/capture.ts";

describe("metal-hammer CLI", () => {
  test("config reads /proc/cmdline and prints JSON", async () => {
    const c = captureContext({ "/proc/cmdline": "console=ttyS0 METAL_BOOT_URL=https://[fd00::1]:8443/ METAL_NET_FAST\n" });
    expect(await runCli(["config", "--json"], c.ctx)).toBe(0);
    const j = JSON.parse(c.out());
    expect(j.metalBootUrl).toBe("https://[fd00::1]:8443/");
    expect(j.fast).toBe(true);
    // console= is the kernel's own parameter, taken as it is (machine-details.yaml's console).
    expect(j.console).toBe("ttyS0");
    expect(j.ignored).toEqual({});
  });

  test("cmdline is an alias of config and takes --cmdline", async () => {
    const c = captureContext();
    expect(await runCli(["cmdline", "--cmdline", "METAL_BOOT_URL=https://boot.example/", "--json"], c.ctx)).toBe(0);
    expect(JSON.parse(c.out()).metalBootUrl).toBe("https://boot.example/");
  });

  test("config --file reads a file", async () => {
    const c = captureContext({ "/tmp/cl": "METAL_BOOT_URL=https://boot.example/ METAL_NET_POLICY=all" });
    expect(await runCli(["config", "--file", "/tmp/cl"], c.ctx)).toBe(0);
    expect(c.out()).toMatch(/^policy\s+all$/m);
  });

  test("a bad parameter: exit 2 and one line, no stack trace", async () => {
    const c = captureContext();
    expect(await runCli(["config", "--cmdline", "METAL_BOOT_URL=https://b/ METAL_NET_TIMEOUT=abc"], c.ctx)).toBe(2);
    expect(c.err()).toBe('metal-hammer: METAL_NET_TIMEOUT="abc": expected a duration like 90s or 2m\n');
    expect(c.out()).toBe("");
  });

  test("an unreadable cmdline file is a usage error naming the path", async () => {
    const c = captureContext();
    expect(await runCli(["config", "--file", "/nonexistent"], c.ctx)).toBe(2);
    expect(c.err()).toContain("/nonexistent");
  });

  test("an unknown command or option is a usage error", async () => {
    const c = captureContext();
    expect(await runCli(["bogus"], c.ctx)).toBe(2);
    expect(await runCli(["config", "--nope"], c.ctx)).toBe(2);
    expect(c.err()).toContain("unknown");
  });

  test("--help succeeds for the program and each command", async () => {
    for (const args of [["--help"], ["run", "--help"], ["config", "--help"], ["version", "--help"]]) {
      const c = captureContext();
      expect(await runCli(args, c.ctx)).toBe(0);
      expect(c.out()).toContain("Usage: metal-hammer");
    }
  });

  test("version --json names version, commit, bun, target and the carried os-installer (none on this host)", async () => {
    const c = captureContext();
    expect(await runCli(["version", "--json"], c.ctx)).toBe(0);
    const v = JSON.parse(c.out());
    expect(Object.keys(v).sort()).toEqual(["bun", "commit", "osInstaller", "target", "version"]);
    expect(v.bun).toBe(Bun.version);
    expect(v.osInstaller).toBeNull();
    const t = captureContext();
    expect(await runCli(["version"], t.ctx)).toBe(0);
    expect(t.out()).toContain("carries no os-installer: this initramfs carries no os-installer (no /usr/lib/metal-hammer/os-installer.json;");
  });

  test("run logs start, config and config warnings as JSON, and stops when no NIC matches", async () => {
    // METAL_NICS names no existing interface: the network stage stops at selection and
    // touches nothing on the machine running the tests (no sysctl, no link change).
    // METAL_WATCHDOG=0 and --run-dir: the host's /dev/watchdog and /run/metal stay untouched.
    const c = captureContext({ "/proc/cmdline": "METAL_BOOT_URL=https://[fd00::1]/ METAL_NICS=mhn-none0 METAL_WATCHDOG=0 ip=dhcp secret_thing=abcdefgh" });
    const code = await runCli(["run", "--run-dir", mkdtempSync(join(tmpdir(), "mh-run-"))], c.ctx);
    const lines = c
      .err()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.event).slice(0, 5)).toEqual(["agent.start", "agent.config", "agent.config.warning", "watchdog.off", "agent.stage"]);
    expect(lines[2].level).toBe(40);
    expect(lines[2].msg).toStartWith('ip="dhcp": ');
    expect(code).toBe(EXIT_CODES.no_interface.exit);
    expect(c.err()).toContain("mhn-none0");
    expect(lines[1].config.ignored.secret_thing).toBe("[redacted]");
  });
});
