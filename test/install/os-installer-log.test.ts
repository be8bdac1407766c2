import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseOsInstallerLog } from "../../src/install/os-installer-log.ts";

const recorded = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/os-installer", name), "utf8").split("\n");

describe("os-installer's output, as v0.3.1 prints it", () => {
  test("a good run: its 19 tasks in order with their times, and os-installer's own total", () => {
    const run = parseOsInstallerLog(recorded("v0.3.1-success.log"));
    expect(run.succeeded).toBe(true);
    expect(run.failed).toBeUndefined();
    expect(run.configError).toBeUndefined();
    expect(run.tasks.map((t) => t.name)).toEqual([
      "persist configuration data from metal-hammer", "check if running in efi mode", "remove .dockerenv if running in virtual environment",
      "write hostname", "write /etc/hosts", "write /etc/resolv.conf", "write ntp configuration", "create metal user", "configure network",
      "authorized ssh keys", "fix wrong filesystem permissions", "process userdata", "build kernel cmdline", "write /etc/metal/boot-info.yaml",
      "write booatloader config", "unset machine id", "deploy systemd services", "write /etc/metal/build-meta.yaml", "execute custom executable",
    ]);
    expect(run.tasks.every((t) => typeof t.ms === "number" && t.ms >= 0)).toBe(true);
    // The bootloader task (grub-install, update-grub2) is the long one.
    const longest = [...run.tasks].sort((a, b) => b.ms! - a.ms!)[0]!;
    expect(longest.name).toBe("write booatloader config");
    expect(run.took).toMatch(/^\d+(\.\d+)?m?s$/);
  });

  test("a failed task: named, with os-installer's error and the tool's own line before it", () => {
    const run = parseOsInstallerLog(recorded("v0.3.1-grub-install-failed.log"));
    expect(run.succeeded).toBe(false);
    expect(run.failed).toEqual({ task: "write booatloader config", error: "exit status 1", output: ["Installing for x86_64-efi platform.", "grub-install: error: /boot/efi doesn't look like an EFI partition."] });
    expect(run.tasks.map((t) => [t.name, t.ms])).toEqual([
      ["build kernel cmdline", 0],
      ["write /etc/metal/boot-info.yaml", 0],
      ["write booatloader config", 10],
    ]);
  });

  test("contract files it cannot read: the reason, and no task run", () => {
    const run = parseOsInstallerLog(recorded("v0.3.1-unknown-field.log"));
    expect(run.configError).toStartWith('unable to parse machine allocation: :41:3 unknown field "placementLabels", expected one of [uuid meta name');
    expect(run.tasks).toEqual([]);
    expect(run.succeeded).toBe(false);
  });

  test("skipped tasks are listed; lines that are not its records (or broken JSON) are ignored", () => {
    const run = parseOsInstallerLog([
      "plain tool output",
      '{"time":"2026-12-01T00:00:00Z","level":"WARN","msg":"skipping task as defined by installer configuration","os-installer":{"task-name":"write hostname"}}',
      '{"time":"2026-12-01T00:00:00Z","level":"INFO","msg":"running install task","os-installer":{"task-name":"write /etc/hosts"}}',
      '{"msg": "running install task", broken',
      "[1, 2]",
    ]);
    expect(run.skipped).toEqual(["write hostname"]);
    expect(run.tasks).toEqual([{ name: "write /etc/hosts", at: "2026-12-01T00:00:00Z", ms: undefined }]);
  });
});
