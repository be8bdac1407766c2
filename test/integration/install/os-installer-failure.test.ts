/**
 * The installer runner (real mounts in a private mount namespace, its own PID namespace,
 * chroot) with a fake /os-installer: a busybox script that replays os-installer v0.3.1's
 * recorded records (test/fixtures/os-installer/v0.3.1-success.log, up to a task), then
 * fails that task as os-installer does (metal-stack/os-installer@7ea1c98
 * pkg/installer/os/common/create_metal_user.go:56 wraps passwd's error; installer.go:204
 * reports it; main.go:22-23 exits 1), with a tool line on stderr that carries the console
 * password it read from machine-details.yaml. The agent's error: exit 54, the task named,
 * exit status and last lines, the password nowhere. And one that hangs inside a task:
 * killed at its bound, the task named.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateConsolePassword } from "../../../src/install/console-password.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { runMountNsDriver } from "../../helpers/mount-ns-driver.ts";

const BUSYBOX = "/bin/busybox";
const ready = prerequisites("a failing /os-installer in the runner", [
  process.getuid?.() !== 0 && "root",
  !existsSync(BUSYBOX) && `a static ${BUSYBOX} (busybox-static)`,
  ...["unshare", "chroot"].map((t) => Bun.which(t) === null && t),
]);

const DRIVER = join(import.meta.dir, "os-installer-failure-driver.ts");
const RECORDED = readFileSync(join(import.meta.dir, "../../fixtures/os-installer/v0.3.1-success.log"), "utf8").split("\n");
/** The recorded lines up to and including the one that matches. */
const upTo = (match: string): string[] => {
  const i = RECORDED.findIndex((l) => l.includes(match));
  if (i < 0) throw new Error(`the recorded log has no line with ${match}`);
  return RECORDED.slice(0, i + 1);
};
const rec = (level: string, msg: string, g: Record<string, unknown> | undefined, top: Record<string, unknown> = {}) =>
  JSON.stringify({ time: "2026-12-01T21:17:19.47090318Z", level, msg, ...top, ...(g ? { "os-installer": g } : {}) });
const sh = (line: string) => `echo '${line.replace(/'/g, `'\\''`)}'`;

/** passwd fails in "create metal user": its stderr line, then os-installer's records as v0.3.1 writes them. */
const FAILING = [
  "#!/bin/sh",
  "/bin/busybox cat /recorded.log",
  `pw=$(/bin/busybox sed -n 's/.*"password": *"\\([^"]*\\)".*/\\1/p' /etc/metal/machine-details.yaml)`,
  'echo "passwd: Authentication token manipulation error (password $pw)" >&2',
  sh(rec("ERROR", "executed command with error", { output: "", duration: "23.141873ms", error: "exit status 10" })),
  sh(rec("ERROR", "running install task failed", { error: "unable to set password for metal user: exit status 10", took: "115.8ms" })),
  sh(rec("ERROR", "running os installer failed", { took: "120.2ms" })),
  sh(
    rec("ERROR", "error while running machine installer", undefined, {
      error: "os installer failed: installation task failed, aborting install: unable to set password for metal user: exit status 10",
    }),
  ),
  "exit 1",
].join("\n");

const HANGING = ["#!/bin/sh", "/bin/busybox cat /recorded.log", "exec /bin/busybox sleep 600"].join("\n");

describe.skipIf(!ready)("a failing /os-installer in the runner", () => {
  let work: string;
  const password = generateConsolePassword(new SecretSet());
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "mh-osi-fail-"));
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  function root(script: string, recorded: readonly string[]): string {
    const r = mkdtempSync(join(work, "root-"));
    mkdirSync(join(r, "bin"));
    copyFileSync(BUSYBOX, join(r, "bin/busybox"));
    symlinkSync("busybox", join(r, "bin/sh"));
    mkdirSync(join(r, "etc/metal"), { recursive: true });
    writeFileSync(join(r, "etc/metal/machine-details.yaml"), `${JSON.stringify({ hostname: "web-1", password }, null, 2)}\n`, { mode: 0o600 });
    writeFileSync(join(r, "recorded.log"), `${recorded.join("\n")}\n`);
    writeFileSync(join(r, "os-installer"), `${script}\n`, { mode: 0o755 });
    return r;
  }

  type Result = { ok: boolean; code?: string; exitCode?: number; message: string; details: Record<string, unknown>; mountsLeft: number };
  const drive = (r: string, timeoutMs: number) => runMountNsDriver<Result>([DRIVER, r, String(timeoutMs), password], timeoutMs + 30_000);

  test('passwd fails in "create metal user": exit 54 naming the task, its error, exit 1 and the last lines; the password in no line', async () => {
    const { result, out } = await drive(root(FAILING, upTo('"command":"passwd metal"')), 30_000);
    expect(result.ok).toBe(false);
    expect(result.code).toBe("installer");
    expect(result.exitCode).toBe(54);
    const lines = result.message.split("\n");
    expect(lines[0]).toBe('installer: /os-installer failed (exit 1) in os-installer task "create metal user": unable to set password for metal user: exit status 10');
    expect(lines[1]).toBe("  command: passwd metal");
    expect(lines[2]).toBe("  its last lines:");
    expect(lines.length).toBe(3 + 10);
    // stdout and stderr are separate pipes: the tool's line is among the last, wherever it landed.
    expect(lines).toContain("    passwd: Authentication token manipulation error (password [redacted])");
    expect(lines.some((l) => l.startsWith("    {") && l.includes('"msg":"error while running machine installer"'))).toBe(true);
    expect(result.details).toMatchObject({ binary: "/os-installer", installerExit: 1, task: "create metal user", command: "passwd metal" });
    expect(result.mountsLeft).toBe(0);
    // The secret reached the installer (its line says so, redacted) but no log line, error or detail.
    expect(out).toContain("(password [redacted])");
    expect(out).not.toContain(password);
  });

  test('hangs inside "configure network": killed at its bound, the task it was in named', async () => {
    const t0 = performance.now();
    const { result } = await drive(root(HANGING, upTo('"task-name":"configure network"')), 1_500);
    expect(result.exitCode).toBe(54);
    expect(result.message.split("\n")[0]).toBe('installer: /os-installer did not finish within 2 s and was killed during os-installer task "configure network"');
    expect(result.details).toMatchObject({ timeoutMs: 1_500, task: "configure network" });
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(result.mountsLeft).toBe(0);
  });

  test("a 4 MiB line and a last line without a newline: both reach the error, the long one cut to its ends", async () => {
    const script = [
      "#!/bin/sh",
      "/bin/busybox cat /recorded.log",
      // 4 MiB without a newline arrives in many pipe reads: one line, kept as its start and end.
      "/bin/busybox head -c 4194304 /dev/zero | /bin/busybox tr '\\0' x",
      "echo ' end of the long line'",
      "printf 'grub-install: error: the last words, no newline'",
      "exit 1",
    ].join("\n");
    const { result } = await drive(root(script, upTo('"task-name":"configure network"')), 20_000);
    expect(result.exitCode).toBe(54);
    const last = result.details.last as string[];
    expect(last.at(-1)).toBe("grub-install: error: the last words, no newline");
    const long = last.at(-2) ?? "";
    expect(long).toStartWith("x".repeat(900));
    expect(long).toEndWith(" end of the long line");
    expect(long).toContain("characters cut");
    expect(long.length).toBeLessThan(2_100);
    expect(result.mountsLeft).toBe(0);
  });
});
