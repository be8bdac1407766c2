/**
 * Runs the installer in a chroot of the target root, as metal-hammer does
 * (metal-stack/metal-hammer@ec148e3 cmd/install.go: chroot, uid/gid 0): the image's own
 * (`/install-go`, `/os-installer`, `/install.sh`), else the os-installer the initramfs
 * carries, copied into the target as `/os-installer` (its sha256 checked against the
 * build's) and removed after the run, whatever happened (installer-choice.ts). The binary
 * that ran is removed from the installed system after a success, as metal-hammer does
 * (cmd/install.go:114). /dev and /sys are
 * bind-mounted in first (recursive binds through mount(2), src/platform/sys/mount.ts), and on a
 * UEFI machine (/sys/firmware/efi exists) efivarfs at /sys/firmware/efi/efivars, as
 * metal-hammer's cmd/storage/filesystem.go specialMounts has it, so the installer's
 * grub-install/efibootmgr can write the boot entry; all detached after, whatever happened.
 * Each mount target is resolved inside the root (src/platform/fs/root-file.ts dirInRoot: a link in
 * the image cannot point a bind at the running system) and mounted through its fd.
 *
 * Contained: the installer runs as PID 1 of its own PID namespace with its own /proc
 * (util-linux `unshare --pid --fork --kill-child --mount-proc=<root>/proc`), so it sees
 * none of the agent's processes (no /proc/1/root into the initramfs and the machine
 * token) and nothing it starts outlives it: when it exits, the kernel kills every
 * process left in the namespace (a `setsid` daemon too); at the deadline unshare gets
 * SIGKILL, and with it (--kill-child) the namespace. The run ends when the installer
 * *exits*, not when its output pipes close: pipes a leftover still held are cut after
 * OUTPUT_GRACE_MS. Every output line is logged (control characters escaped) and folded
 * into os-installer's log as it comes (os-installer-log.ts); when it fails, the error names
 * the task os-installer reported failed, the exit status and the last lines, scrubbed
 * (installer-failure.ts). Then /etc/metal/boot-info.yaml is read
 * back inside the root (a regular file, no link, capped) with the strict parser (boot-info.ts).
 *
 * The chroot itself is done by the `chroot` tool (busybox's applet in the initramfs):
 * Bun cannot chroot a child between fork and exec.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync } from "node:fs";
import { access, constants, rm } from "node:fs/promises";
import { join } from "node:path";
import { EFI_DIR } from "./efi/ensure-boot-order.ts";
import { AgentError } from "../platform/errors.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import { MNT_DETACH, MS_BIND, MS_REC, UMOUNT_NOFOLLOW, linuxMount, type MountSys } from "../platform/sys/mount.ts";
import { BootInfoError, parseBootInfo, type BootInfo } from "./boot-info.ts";
import { BOOT_INFO_PATH } from "./contract.ts";
import { READ_CAPS } from "../platform/fs/read-bounded.ts";
import { dirInRoot, readInRoot, writeInRoot } from "../platform/fs/root-file.ts";
import { readBoundedSync } from "../platform/fs/read-bounded.ts";
import { CARRIED_INSTALLER_CAP, type CarriedInstaller } from "./carried-installer.ts";
import { chooseInstaller, IMAGE_INSTALLERS, type InstallerChoice } from "./installer-choice.ts";
import { escapeLine } from "./escape-line.ts";
import { installerFailure, type InstallerEnd } from "./installer-failure.ts";
import { LineTail } from "./line-tail.ts";
import { OS_INSTALLER_LOG_START, foldOsInstallerLine, osInstallerRun, type OsInstallerLogState, type OsInstallerRun } from "./os-installer-log.ts";

export const DEFAULT_INSTALLER_TIMEOUT_MS = 20 * 60_000;
/** After the installer exited (or was killed): how long its output may still drain before the pipes are cut. */
export const OUTPUT_GRACE_MS = 2_000;
const KEEP_LINES = 20;
/** Where the container tool is looked up (util-linux's unshare is /usr/bin/unshare, ahead of busybox's applet). */
const TOOL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

/** The command that contains the installer: its own PID namespace, /proc of that namespace at `proc`. */
export function containArgv(proc: string): string[] {
  return [Bun.which("unshare", { PATH: TOOL_PATH }) ?? "unshare", "--pid", "--fork", "--kill-child=SIGKILL", `--mount-proc=${proc}`];
}

export interface InstallerOptions {
  readonly root: string;
  readonly log: Logger;
  readonly timeoutMs?: number;
  readonly mounts?: MountSys;
  /** The machine runs UEFI: efivarfs is mounted into the chroot (default: /sys/firmware/efi exists). */
  readonly uefi?: boolean;
  /** The chroot command (default: `chroot` on PATH). */
  readonly chroot?: readonly string[];
  /** The command in front of chroot, given the resolved /proc mount point (default: containArgv). */
  readonly contain?: (proc: string) => readonly string[];
  /** How long output may drain after the installer exited (default OUTPUT_GRACE_MS). */
  readonly outputGraceMs?: number;
  /** Scrubs secrets from the lines kept for the error (the log scrubs its own). */
  readonly scrub?: (text: string) => string;
  /** The os-installer this initramfs carries (carried-installer.ts readCarriedInstaller), used when the image has none. */
  readonly carried?: CarriedInstaller;
}

export interface InstallerResult {
  readonly binary: string;
  /** Which installer ran and why: the image's own or the carried one. */
  readonly choice: InstallerChoice;
  readonly ms: number;
  readonly lines: number;
  readonly bootInfo: BootInfo;
}

/** Which of the image installers the unpacked image has as executable files. */
export async function imageInstallers(root: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (const c of IMAGE_INSTALLERS) {
    try {
      await access(join(root, c), constants.X_OK);
      found.add(c);
    } catch {
      // not there, or not executable
    }
  }
  return found;
}

const NO_CARRIED: CarriedInstaller = { present: false, why: "no carried installer was given" };

/**
 * Copies the carried installer into the target (inside the root, atomically, 0755) after
 * checking its bytes against the sha256 the initramfs build recorded: a damaged copy in
 * the initramfs is named, never run.
 */
function placeCarried(root: string, c: Extract<InstallerChoice, { kind: "carried" }>): void {
  let bytes: Uint8Array;
  try {
    bytes = readBoundedSync(c.source, CARRIED_INSTALLER_CAP);
  } catch (e) {
    throw new AgentError("installer", `installer: cannot read the carried ${c.info.name} ${c.source}: ${(e as Error).message}`, { source: c.source });
  }
  const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  if (sha256 !== c.info.sha256 || bytes.length !== c.info.bytes)
    throw new AgentError(
      "installer",
      `installer: the carried ${c.info.name} ${c.source} has ${bytes.length} bytes with sha256 ${sha256}, the initramfs build recorded ${c.info.bytes} bytes with sha256 ${c.info.sha256}`,
      { source: c.source },
    );
  try {
    writeInRoot(root, c.binary, bytes, 0o755);
  } catch (e) {
    throw new AgentError("installer", `installer: cannot copy the carried ${c.info.name} into the target as ${c.binary}: ${(e as Error).message}`, { root });
  }
}

/** Removes the installer that ran from the installed system; a failure is a warning (metal-hammer: "unable to remove, ignoring"). */
async function removeInstaller(root: string, binary: string, log: Logger): Promise<void> {
  try {
    // Only the name inside the root: rm does not follow a final link.
    await rm(join(root, binary), { force: true });
  } catch (e) {
    logEvent(
      log,
      "install.installer.done",
      { binary, removeFailed: (e as Error).message },
      `installer: could not remove ${binary} from the target: ${(e as Error).message}`,
      "warn",
    );
  }
}

interface ChrootMount {
  readonly source: string;
  readonly target: string;
  readonly fstype: string;
  readonly flags: number;
}

/** /proc is not bound: the installer gets the /proc of its own PID namespace (containArgv). */
const BINDS: readonly ChrootMount[] = ["/dev", "/sys"].map((p) => ({ source: p, target: p, fstype: "", flags: MS_BIND | MS_REC }));
/** After /sys (the order matters): metal-stack/metal-hammer@ec148e3 cmd/storage/filesystem.go:417 specialMounts. */
export const EFIVARS: ChrootMount = { source: "efivarfs", target: `${EFI_DIR}/efivars`, fstype: "efivarfs", flags: 0 };
export const isUefi = (): boolean => existsSync(EFI_DIR);

/** A directory of the root for a mount: made when missing, resolved inside the root; its real path. */
function mountPoint(root: string, path: string): { fd: number; real: string } {
  try {
    return dirInRoot(root, path, { mode: 0o755 });
  } catch (e) {
    throw new AgentError("installer", `installer: mount point ${path}: ${(e as Error).message}`, { root, path });
  }
}

/** Binds /dev and /sys into root, then efivarfs when `uefi`; returns what was mounted (real paths, for unbind). */
export async function bindSystem(root: string, sys: MountSys, uefi = false): Promise<string[]> {
  const done: string[] = [];
  for (const m of uefi ? [...BINDS, EFIVARS] : BINDS) {
    let at: { fd: number; real: string };
    try {
      at = mountPoint(root, m.target);
    } catch (e) {
      unbindSystem(done, sys);
      throw e;
    }
    const target = at.real;
    // Mounted through the fd: the kernel's own resolution of the directory, not the path again.
    const err = sys.mount(m.source, `/proc/self/fd/${at.fd}`, m.fstype, m.flags);
    closeSync(at.fd);
    if (err !== 0) {
      unbindSystem(done, sys);
      const what = m.fstype === "" ? `bind-mount ${m.source}` : `mount ${m.fstype}`;
      throw new AgentError("installer", `installer: cannot ${what} onto ${target} (errno ${err})`, { src: m.source, target, errno: err });
    }
    done.push(target);
  }
  return done;
}

/** Detaches the binds (lazily: a process the installer left behind cannot pin them). Answers what failed. */
export function unbindSystem(targets: readonly string[], sys: MountSys): string[] {
  const failed: string[] = [];
  for (const t of [...targets].reverse()) if (sys.umount(t, MNT_DETACH | UMOUNT_NOFOLLOW) !== 0) failed.push(t);
  return failed;
}

interface Run {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly last: readonly string[];
  readonly lines: number;
  readonly spawnError: string | undefined;
  /** What its output said as os-installer's log (os-installer-log.ts), read line by line. */
  readonly osInstaller: OsInstallerRun;
}

/** The installer's environment: nothing of the agent's (no token path, no METAL_*). */
const INSTALLER_ENV = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", HOME: "/root", LC_ALL: "C", TERM: "dumb" };

/** What a run gathers while the installer runs: the one state the steps below update. */
interface Gathering {
  /** The last KEEP_LINES output lines, escaped and scrubbed (for the error). */
  readonly last: string[];
  lines: number;
  osInstaller: OsInstallerLogState;
  spawnError: string | undefined;
  timedOut: boolean;
}

const gathering = (): Gathering => ({ last: [], lines: 0, osInstaller: OS_INSTALLER_LOG_START, spawnError: undefined, timedOut: false });

/** One output line: folded into os-installer's log, kept (scrubbed) among the last lines, logged with control characters escaped. */
function recordLine(g: Gathering, o: InstallerOptions, binary: string, stream: "stdout" | "stderr", raw: string): void {
  const line = escapeLine(raw);
  g.lines++;
  g.osInstaller = foldOsInstallerLine(g.osInstaller, raw);
  g.last.push(o.scrub ? o.scrub(line) : line);
  if (g.last.length > KEEP_LINES) g.last.shift();
  logEvent(o.log, "install.installer.output", { binary, stream, line });
}

/** The installer in its own process group (detached), so the deadline kills its children too. */
function spawnInGroup(argv: readonly string[]): ChildProcess {
  return spawn(argv[0]!, argv.slice(1), { cwd: "/", detached: true, stdio: ["ignore", "pipe", "pipe"], env: INSTALLER_ENV });
}

/** At `timeoutMs` the whole process group gets SIGKILL (the child alone if the group is gone); the run is marked timed out. */
function killAtDeadline(child: ChildProcess, g: Gathering, timeoutMs: number): ReturnType<typeof setTimeout> {
  return setTimeout(() => {
    g.timedOut = true;
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }, timeoutMs);
}

/**
 * Runs `argv` to its end: its output recorded line by line, SIGKILL at the deadline.
 * The end is the exit (or a spawn error); output still in the pipes gets the grace
 * (OUTPUT_GRACE_MS), then the pipes are cut.
 */
function runChrooted(argv: string[], o: InstallerOptions, timeoutMs: number, binary: string): Promise<Run> {
  return new Promise((resolve) => {
    const g = gathering();
    const child = spawnInGroup(argv);
    // LineTail: each chunk scanned once, a long line capped to its ends, the last line
    // without a newline counted at the stream's end (it is often the tool's error).
    const tails = (["stdout", "stderr"] as const).map((stream) => {
      const lines = new LineTail(0, (raw) => recordLine(g, o, binary, stream, raw));
      child[stream]!.setEncoding("utf8")
        .on("data", (t: string) => lines.push(t))
        .on("end", () => lines.end());
      return lines;
    });
    const deadline = killAtDeadline(child, g, timeoutMs);
    let grace: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const finish = (code: number | null, signal: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(grace);
      resolve({ code, signal, timedOut: g.timedOut, last: g.last, lines: g.lines, spawnError: g.spawnError, osInstaller: osInstallerRun(g.osInstaller) });
    };
    child.on("error", (e) => {
      g.spawnError = e.message;
      finish(null, null);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(deadline);
      grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        for (const t of tails) t.end();
        finish(code, signal);
      }, o.outputGraceMs ?? OUTPUT_GRACE_MS);
      child.on("close", () => finish(code, signal));
    });
  });
}

/** How the run failed (timed out, killed by a signal, a non-zero exit), or undefined when it exited 0. */
function installerEnd(run: Run, timeoutMs: number): InstallerEnd | undefined {
  if (run.timedOut) return { kind: "timeout", timeoutMs };
  if (run.code === null) return { kind: "signal", signal: run.signal ?? "unknown" };
  return run.code !== 0 ? { kind: "exit", code: run.code } : undefined;
}

/** /etc/metal/boot-info.yaml as the installer left it: inside the target root, a regular file and no link (a link, FIFO or device node is refused at once), capped, parsed strictly. */
function readBootInfo(root: string, binary: string): BootInfo {
  let text: string;
  try {
    text = new TextDecoder().decode(readInRoot(root, BOOT_INFO_PATH, READ_CAPS.installerOutput, { followLast: false }));
  } catch (e) {
    const missing = (e as { code?: unknown }).code === "ENOENT";
    throw new AgentError("installer", `installer: ${binary} succeeded but ${missing ? "left no" : "left an unreadable"} ${BOOT_INFO_PATH}: ${(e as Error).message}`, { binary });
  }
  try {
    return parseBootInfo(text);
  } catch (e) {
    if (e instanceof BootInfoError) throw new AgentError("installer", `installer: ${BOOT_INFO_PATH} written by ${binary}: ${e.message}`, { binary });
    throw e;
  }
}

export async function runInstaller(o: InstallerOptions): Promise<InstallerResult> {
  const t0 = performance.now();
  const timeoutMs = o.timeoutMs ?? DEFAULT_INSTALLER_TIMEOUT_MS;
  const choice = chooseInstaller(await imageInstallers(o.root), o.carried ?? NO_CARRIED);
  const binary = choice.binary;
  logEvent(o.log, "install.installer.choice", { binary, kind: choice.kind, reason: choice.reason }, `installer: ${binary}: ${choice.reason}`);
  if (choice.kind === "carried") placeCarried(o.root, choice);
  try {
    return await runChosen(o, choice, t0, timeoutMs);
  } finally {
    if (choice.kind === "carried") await removeInstaller(o.root, binary, o.log);
  }
}

/** The chosen installer in its container, then its boot-info; the image's own is removed after a success. */
async function runChosen(o: InstallerOptions, choice: InstallerChoice, t0: number, timeoutMs: number): Promise<InstallerResult> {
  const binary = choice.binary;
  const sys = o.mounts ?? linuxMount;
  const proc = mountPoint(o.root, "/proc");
  closeSync(proc.fd);
  const binds = await bindSystem(o.root, sys, o.uefi ?? isUefi());
  let run: Run;
  try {
    const argv = [...(o.contain ?? containArgv)(proc.real), ...(o.chroot ?? ["chroot"]), o.root, binary];
    logEvent(
      o.log,
      "install.installer.start",
      { binary, root: o.root, timeoutMs, argv },
      `installer: running ${binary} in a chroot of ${o.root}, in its own PID namespace (bound ${Math.round(timeoutMs / 1000)} s)`,
    );
    run = await runChrooted(argv, o, timeoutMs, binary);
  } finally {
    const stuck = unbindSystem(binds, sys);
    if (stuck.length > 0) logEvent(o.log, "install.installer.done", { binary, unmountFailed: stuck }, `installer: could not detach ${stuck.join(", ")}`, "warn");
  }
  const ms = Math.round(performance.now() - t0);
  if (run.spawnError) throw new AgentError("installer", `installer: cannot start ${[...(o.chroot ?? ["chroot"])].join(" ")} ${o.root} ${binary}: ${run.spawnError}`, { binary });
  const end = installerEnd(run, timeoutMs);
  if (end) {
    const f = installerFailure({ binary, end, run: run.osInstaller, last: run.last, ...(o.scrub ? { scrub: o.scrub } : {}) });
    throw new AgentError("installer", f.message, f.details);
  }
  const bootInfo = readBootInfo(o.root, binary);
  if (choice.kind === "image") await removeInstaller(o.root, binary, o.log);
  logEvent(
    o.log,
    "install.installer.done",
    { binary, ms, lines: run.lines, kernel: bootInfo.kernel, initrd: bootInfo.initrd, bootloaderId: bootInfo.bootloaderId },
    `installer: ${binary} done in ${ms} ms; boot ${bootInfo.kernel}`,
  );
  return { binary, choice, ms, lines: run.lines, bootInfo };
}
