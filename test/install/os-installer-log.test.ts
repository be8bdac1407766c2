import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OUTPUT_LINES, parseOsInstallerLog } from "../../src/install/os-installer-log.ts";
import { OS_INSTALLER_TASKS } from "../fixtures/os-installer/tasks.ts";

const recorded = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/os-installer", name), "utf8").split("\n");

describe("os-installer's output, as v0.3.1 prints it", () => {
  test("a good run: its 19 tasks in order with their times, and os-installer's own total", () => {
    const run = parseOsInstallerLog(recorded("v0.3.1-success.log"));
    expect(run.succeeded).toBe(true);
    expect(run.failed).toBeUndefined();
    expect(run.configError).toBeUndefined();
    expect(run.tasks.map((t) => t.name)).toEqual([...OS_INSTALLER_TASKS]);
    expect(run.tasks.every((t) => typeof t.ms === "number" && t.ms >= 0)).toBe(true);
    // The bootloader task (grub-install, update-grub2) is the long one.
    const longest = [...run.tasks].sort((a, b) => b.ms! - a.ms!)[0]!;
    expect(longest.name).toBe("write booatloader config");
    expect(run.took).toMatch(/^\d+(\.\d+)?m?s$/);
    expect(run.running).toBeUndefined();
    expect(run.verdict).toBeUndefined();
  });

  test("a failed task (recorded): named, with os-installer's error, the failing command and the tool's own lines", () => {
    const run = parseOsInstallerLog(recorded("v0.3.1-grub-install-failed.log"));
    expect(run.succeeded).toBe(false);
    expect(run.failed).toEqual({
      task: "write booatloader config",
      error: "exit status 1",
      command: "grub-install --target=x86_64-efi --efi-directory=/boot/efi --boot-directory=/boot --bootloader-id=metal-debian --removable",
      output: ["Installing for x86_64-efi platform.", "grub-install: error: /boot/efi doesn't look like an EFI partition."],
    });
    expect(run.running).toBeUndefined();
    expect(run.verdict).toBe("os installer failed: installation task failed, aborting install: exit status 1");
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
    expect(run.failed).toBeUndefined();
    // main.go goes on without its configuration; the installer then gives up with this.
    expect(run.verdict).toBe("os detection failed: allocation must be passed to os-installer");
  });

  test("output cut before a task ended (killed at the bound, a crash): the task it was in", () => {
    const lines = recorded("v0.3.1-grub-install-failed.log");
    const cutAt = lines.findIndex((l) => l.startsWith("grub-install: error"));
    const run = parseOsInstallerLog(lines.slice(0, cutAt));
    expect(run.failed).toBeUndefined();
    expect(run.running).toBe("write booatloader config");
    expect(run.tasks.at(-1)).toEqual({ name: "write booatloader config", at: "2026-12-01T21:13:41.674462489Z", ms: undefined });
  });

  test("a command that failed earlier in the task is not named when another record came before the task failed", () => {
    const rec = (msg: string, g: Record<string, unknown> = {}) => JSON.stringify({ time: "2026-12-01T00:00:00Z", level: "INFO", msg, "os-installer": g });
    const run = parseOsInstallerLog([
      rec("running install task", { "task-name": "deploy systemd services" }),
      rec("running command", { command: "ignition -version" }),
      rec("executed command with error", { output: "", error: "exec: not found" }),
      rec("ignition not present, skipping"),
      rec("running install task failed", { error: "unable to write unit" }),
    ]);
    expect(run.failed).toEqual({ task: "deploy systemd services", error: "unable to write unit", command: undefined, output: [] });
  });

  test("a failing command's captured stdout joins the task's tool lines; only the last few are kept", () => {
    const rec = (msg: string, g: Record<string, unknown> = {}) => JSON.stringify({ time: "2026-12-01T00:00:00Z", level: "INFO", msg, "os-installer": g });
    const run = parseOsInstallerLog([
      rec("running install task", { "task-name": "configure network" }),
      ...Array.from({ length: 8 }, (_, i) => `tool line ${i}`),
      rec("running command", { command: "vtysh --dryrun" }),
      rec("executed command with error", { output: "line 3: % Unknown command\n", error: "exit status 2" }),
      rec("running install task failed", { error: "frr config invalid: exit status 2" }),
    ]);
    expect(run.failed?.output).toEqual(["tool line 4", "tool line 5", "tool line 6", "tool line 7", "line 3: % Unknown command"]);
    expect(run.failed?.output.length).toBe(OUTPUT_LINES);
    expect(run.failed?.command).toBe("vtysh --dryrun");
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
