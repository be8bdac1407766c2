import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { escapeLine } from "../../src/install/escape-line.ts";
import { installerFailure, TAIL_LINES } from "../../src/install/installer-failure.ts";
import { parseOsInstallerLog } from "../../src/install/os-installer-log.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";
import { OS_INSTALLER_TASKS } from "../fixtures/os-installer/tasks.ts";

const recorded = (name: string) =>
  readFileSync(join(import.meta.dir, "../fixtures/os-installer", name), "utf8")
    .split("\n")
    .filter((l) => l !== "");
/** What the runner hands over: every line read as os-installer's log, the last 20 kept escaped. */
const failure = (lines: readonly string[], o: { binary?: string; end?: Parameters<typeof installerFailure>[0]["end"]; scrub?: (t: string) => string } = {}) =>
  installerFailure({
    binary: o.binary ?? "/os-installer",
    end: o.end ?? { kind: "exit", code: 1 },
    run: parseOsInstallerLog(lines),
    last: lines.slice(-20).map((l) => escapeLine(l)),
    ...(o.scrub ? { scrub: o.scrub } : {}),
  });
const rec = (msg: string, g: Record<string, unknown> = {}, top: Record<string, unknown> = {}) =>
  JSON.stringify({ time: "2026-12-01T00:00:00Z", level: "INFO", msg, ...top, "os-installer": g });

describe("the error of a failed installer (exit 54)", () => {
  test("grub-install failed (recorded from os-installer v0.3.1): the task, its error, the command, the tool's lines", () => {
    const lines = recorded("v0.3.1-grub-install-failed.log");
    const f = failure(lines);
    const [first, ...rest] = f.message.split("\n");
    expect(first).toBe('installer: /os-installer failed (exit 1) in os-installer task "write booatloader config": exit status 1');
    expect(rest.slice(0, 2)).toEqual([
      "  command: grub-install --target=x86_64-efi --efi-directory=/boot/efi --boot-directory=/boot --bootloader-id=metal-debian --removable",
      "  its last lines:",
    ]);
    // The last 10 output lines, the tool's own error among them (so not repeated apart).
    expect(rest.slice(2)).toEqual(lines.slice(-TAIL_LINES).map((l) => `    ${l}`));
    expect(rest).toContain("    grub-install: error: /boot/efi doesn't look like an EFI partition.");
    expect(f.details).toMatchObject({
      binary: "/os-installer",
      installerExit: 1,
      task: "write booatloader config",
      taskError: "exit status 1",
      command: "grub-install --target=x86_64-efi --efi-directory=/boot/efi --boot-directory=/boot --bootloader-id=metal-debian --removable",
    });
    expect(f.details.last).toEqual(lines.slice(-TAIL_LINES));
    // agent.fatal spreads the details over its own fields: the agent's exit code (54) must stay.
    expect(f.details).not.toHaveProperty("exitCode");
  });

  test("useradd missing (a whole failed run of the real v0.3.1, recorded): the task, the exec error, the command", () => {
    const lines = recorded("v0.3.1-useradd-missing.log");
    const f = failure(lines);
    expect(f.message.split("\n").slice(0, 3)).toEqual([
      'installer: /os-installer failed (exit 1) in os-installer task "create metal user": exec: "useradd": executable file not found in $PATH',
      "  command: useradd --create-home --uid 1000 --gid sudo --shell /bin/bash metal",
      "  its last lines:",
    ]);
    expect(f.message.split("\n").length).toBe(3 + TAIL_LINES);
    expect(parseOsInstallerLog(lines).tasks.map((t) => t.name)).toEqual(OS_INSTALLER_TASKS.slice(0, 8));
  });

  test("contract files it cannot read (recorded): its last word in the headline, the parse error under it", () => {
    const f = failure(recorded("v0.3.1-unknown-field.log"));
    expect(f.message.split("\n").slice(0, 5)).toEqual([
      "installer: /os-installer failed (exit 1): os detection failed: allocation must be passed to os-installer",
      '  os-installer could not read its configuration: unable to parse machine allocation: :41:3 unknown field "placementLabels", expected one of [uuid meta name description created_by project image ...]',
      '      41 |   "placementLabels": {',
      "      41 | ..^",
      "  its last lines:",
    ]);
    expect(f.details).toMatchObject({ binary: "/os-installer", installerExit: 1, verdict: "os detection failed: allocation must be passed to os-installer" });
    expect(f.details.task).toBeUndefined();
  });

  test("the tools' lines of the failed task are shown apart when its end pushed them out of the tail", () => {
    const lines = [
      rec("running install task", { "task-name": "write booatloader config" }),
      rec("running command", { command: "update-grub2" }),
      "/usr/sbin/grub-mkconfig: 42: cannot create /boot/grub/grub.cfg.new: Read-only file system",
      rec("executed command with error", { output: "", error: "exit status 2" }),
      rec("running install task failed", { error: "exit status 2" }),
      ...Array.from({ length: TAIL_LINES }, (_, i) => rec(`later record ${i}`)),
    ];
    const msg = failure(lines).message.split("\n");
    expect(msg.slice(0, 4)).toEqual([
      'installer: /os-installer failed (exit 1) in os-installer task "write booatloader config": exit status 2',
      "  command: update-grub2",
      "  the task's tools printed:",
      "    /usr/sbin/grub-mkconfig: 42: cannot create /boot/grub/grub.cfg.new: Read-only file system",
    ]);
  });

  test("killed at its bound inside a task: the bound and the task it was in", () => {
    const lines = recorded("v0.3.1-grub-install-failed.log").slice(0, 6);
    const f = failure(lines, { end: { kind: "timeout", timeoutMs: 1_200_000 } });
    expect(f.message.split("\n")[0]).toBe('installer: /os-installer did not finish within 1200 s and was killed during os-installer task "write booatloader config"');
    expect(f.details).toMatchObject({ timeoutMs: 1_200_000, task: "write booatloader config" });
  });

  test("not os-installer (the test OS's /install.sh): the path, the exit status, its last lines", () => {
    const f = failure(["installer: read /etc/metal/install.yaml", "installer: grub-install failed: no EFI partition"], { binary: "/install.sh", end: { kind: "exit", code: 7 } });
    expect(f.message).toBe(
      "installer: /install.sh failed (exit 7)\n  its last lines:\n    installer: read /etc/metal/install.yaml\n    installer: grub-install failed: no EFI partition",
    );
    expect(failure([], { binary: "/install.sh", end: { kind: "signal", signal: "SIGSEGV" } }).message).toBe("installer: /install.sh failed (signal SIGSEGV)\n  no output");
  });

  test("control characters from its records cannot forge lines: a task name with a newline stays on the headline", () => {
    const f = failure([rec("running install task", { "task-name": "evil\nagent.fatal: fake" }), rec("running install task failed", { error: "bad\u001b[31m" })]);
    expect(f.message.split("\n")[0]).toBe('installer: /os-installer failed (exit 1) in os-installer task "evil\\nagent.fatal: fake": bad\\x1b[31m');
  });

  test("no secret in the error: the console password and the VPN auth key, raw or JSON-escaped, in the task's error, a tool line and the tail", () => {
    const secrets = new SecretSet();
    const password = "s3cr+T/pa55word";
    const vpnKey = 'tskey-auth-"kTEST0123456789';
    secrets.add(password);
    secrets.add(vpnKey);
    const lines = [
      rec("running install task", { "task-name": "create metal user" }),
      rec("running command", { command: `usermod --password ${password} metal` }),
      `passwd: bad password ${password}`,
      rec("executed command with error", { output: `tailscale up --authkey ${vpnKey}\n`, error: "exit status 1" }),
      rec("running install task failed", { error: `unable to set password ${password} (vpn ${vpnKey}): exit status 1` }),
    ];
    const scrub = (t: string) => secrets.scrub(t);
    // The runner keeps its tail scrubbed (installer.ts), as it logs them.
    const f = installerFailure({ binary: "/os-installer", end: { kind: "exit", code: 1 }, run: parseOsInstallerLog(lines), last: lines.map((l) => scrub(escapeLine(l))), scrub });
    const all = `${f.message}\n${JSON.stringify(f.details)}`;
    for (const secret of [password, vpnKey, JSON.stringify(vpnKey).slice(1, -1)]) expect(all).not.toContain(secret);
    expect(f.message.split("\n")[0]).toBe(
      'installer: /os-installer failed (exit 1) in os-installer task "create metal user": unable to set password [redacted] (vpn [redacted]): exit status 1',
    );
    expect(f.details.command).toBe("usermod --password [redacted] metal");
    // The failing command's captured stdout is in no tail line of its own: the task's tool lines are shown apart.
    expect(f.message.split("\n").slice(1, 5)).toEqual([
      "  command: usermod --password [redacted] metal",
      "  the task's tools printed:",
      "    passwd: bad password [redacted]",
      "    tailscale up --authkey [redacted]",
    ]);
    // A tool line with a secret that is in the (scrubbed) tail is not repeated apart.
    const two = lines.slice(0, 3).concat(lines[4]!);
    const g = installerFailure({ binary: "/os-installer", end: { kind: "exit", code: 1 }, run: parseOsInstallerLog(two), last: two.map((l) => scrub(escapeLine(l))), scrub });
    expect(g.message.split("\n").slice(1, 3)).toEqual(["  its last lines:", `    ${scrub(two[0]!)}`]);
  });
});
