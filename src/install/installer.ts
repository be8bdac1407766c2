/**
 * Runs the image's installer in a chroot of the target root, as metal-hammer's
 * cmd/install.go does (chroot, uid/gid 0): `/os-installer` when the image has it
 * (../shared/reference/os-installer), else `/install.sh`. /dev, /proc and /sys are
 * bind-mounted in first (recursive binds through mount(2), src/sys/mount.ts), and on a
 * UEFI machine (/sys/firmware/efi exists) efivarfs at /sys/firmware/efi/efivars, as
 * metal-hammer's cmd/storage/filesystem.go specialMounts has it, so the installer's
 * grub-install/efibootmgr can write the boot entry; all detached after, whatever happened. The run is bounded (SIGKILL to its process group
 * at the deadline); every output line is logged (control characters escaped) and the
 * last lines go into the error when it fails. Then /etc/metal/boot-info.yaml is read
 * back with the strict parser (boot-info.ts).
 *
 * The chroot itself is done by the `chroot` tool (busybox's applet in the initramfs):
 * Bun cannot chroot a child between fork and exec.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { access, constants, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { EFI_DIR } from "../efi/ensure-boot-order.ts";
import { AgentError } from "../errors.ts";
import { logEvent, type Logger } from "../log/logger.ts";
import { MNT_DETACH, MS_BIND, MS_REC, linuxMount, type MountSys } from "../sys/mount.ts";
import { BootInfoError, parseBootInfo, type BootInfo } from "./boot-info.ts";
import { BOOT_INFO_PATH } from "./contract.ts";
import { resolveInRoot } from "./root-path.ts";
import { readBoundedText } from "../fs/read-bounded.ts";

export const INSTALLER_CANDIDATES = ["/os-installer", "/install.sh"] as const;
export const DEFAULT_INSTALLER_TIMEOUT_MS = 20 * 60_000;
const KEEP_LINES = 20;

export interface InstallerOptions {
  readonly root: string;
  readonly log: Logger;
  readonly timeoutMs?: number;
  readonly mounts?: MountSys;
  /** The machine runs UEFI: efivarfs is mounted into the chroot (default: /sys/firmware/efi exists). */
  readonly uefi?: boolean;
  /** The chroot command (default: `chroot` on PATH). */
  readonly chroot?: readonly string[];
  /** Scrubs secrets from the lines kept for the error (the log scrubs its own). */
  readonly scrub?: (text: string) => string;
}

export interface InstallerResult {
  readonly binary: string;
  readonly ms: number;
  readonly lines: number;
  readonly bootInfo: BootInfo;
}

/** One output line made safe for a log line: control characters (ESC sequences too) as \xNN. Pure. */
export function escapeLine(line: string, max = 2_000): string {
  const clean = line.replace(/\r$/, "").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return clean.length > max ? `${clean.slice(0, max)}...(${clean.length - max} more)` : clean;
}

export async function findInstaller(root: string): Promise<string> {
  for (const c of INSTALLER_CANDIDATES) {
    try {
      await access(join(root, c), constants.X_OK);
      return c;
    } catch {
      // next candidate
    }
  }
  throw new AgentError("installer", `installer: the image has neither ${INSTALLER_CANDIDATES.join(" nor ")} (executable) in ${root}`, { root });
}

interface ChrootMount {
  readonly source: string;
  readonly target: string;
  readonly fstype: string;
  readonly flags: number;
}

const BINDS: readonly ChrootMount[] = ["/dev", "/proc", "/sys"].map((p) => ({ source: p, target: p, fstype: "", flags: MS_BIND | MS_REC }));
/** After /sys (the order matters): ../shared/reference/metal-hammer/cmd/storage/filesystem.go specialMounts. */
export const EFIVARS: ChrootMount = { source: "efivarfs", target: `${EFI_DIR}/efivars`, fstype: "efivarfs", flags: 0 };
export const isUefi = (): boolean => existsSync(EFI_DIR);

/** Binds /dev, /proc, /sys into root, then efivarfs when `uefi`; returns what was mounted (for unbind). */
export async function bindSystem(root: string, sys: MountSys, uefi = false): Promise<string[]> {
  const done: string[] = [];
  for (const m of uefi ? [...BINDS, EFIVARS] : BINDS) {
    const target = join(root, m.target);
    await mkdir(target, { recursive: true, mode: 0o755 });
    const err = sys.mount(m.source, target, m.fstype, m.flags);
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
  for (const t of [...targets].reverse()) if (sys.umount(t, MNT_DETACH) !== 0) failed.push(t);
  return failed;
}

interface Run {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly last: readonly string[];
  readonly lines: number;
  readonly spawnError: string | undefined;
}

function runChrooted(argv: string[], o: InstallerOptions, timeoutMs: number, binary: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: "/",
      detached: true, // its own process group: the deadline kills the installer's children too
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", HOME: "/root", LC_ALL: "C", TERM: "dumb" },
    });
    const last: string[] = [];
    let lines = 0;
    let spawnError: string | undefined;
    let timedOut = false;
    const onText = (stream: "stdout" | "stderr") => {
      let partial = "";
      return (t: string) => {
        const parts = (partial + t).split("\n");
        partial = parts.pop() ?? "";
        for (const p of parts) emit(stream, p);
      };
    };
    const emit = (stream: string, raw: string) => {
      const line = escapeLine(raw);
      lines++;
      last.push(o.scrub ? o.scrub(line) : line);
      if (last.length > KEEP_LINES) last.shift();
      logEvent(o.log, "install.installer.output", { binary, stream, line });
    };
    child.stdout!.setEncoding("utf8").on("data", onText("stdout"));
    child.stderr!.setEncoding("utf8").on("data", onText("stderr"));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeoutMs);
    child.on("error", (e) => {
      spawnError = e.message;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, last, lines, spawnError });
    });
  });
}

export async function runInstaller(o: InstallerOptions): Promise<InstallerResult> {
  const t0 = performance.now();
  const timeoutMs = o.timeoutMs ?? DEFAULT_INSTALLER_TIMEOUT_MS;
  const sys = o.mounts ?? linuxMount;
  const binary = await findInstaller(o.root);
  const binds = await bindSystem(o.root, sys, o.uefi ?? isUefi());
  let run: Run;
  try {
    logEvent(o.log, "install.installer.start", { binary, root: o.root, timeoutMs }, `installer: running ${binary} in a chroot of ${o.root} (bound ${Math.round(timeoutMs / 1000)} s)`);
    run = await runChrooted([...(o.chroot ?? ["chroot"]), o.root, binary], o, timeoutMs, binary);
  } finally {
    const stuck = unbindSystem(binds, sys);
    if (stuck.length > 0) logEvent(o.log, "install.installer.done", { binary, unmountFailed: stuck }, `installer: could not detach ${stuck.join(", ")}`, "warn");
  }
  const ms = Math.round(performance.now() - t0);
  const tail = run.last.length > 0 ? `; its last lines:\n  ${run.last.slice(-10).join("\n  ")}` : " (no output)";
  if (run.spawnError) throw new AgentError("installer", `installer: cannot start ${[...(o.chroot ?? ["chroot"])].join(" ")} ${o.root} ${binary}: ${run.spawnError}`, { binary });
  if (run.timedOut) throw new AgentError("installer", `installer: ${binary} did not finish within ${Math.round(timeoutMs / 1000)} s and was killed${tail}`, { binary, timeoutMs, last: run.last });
  if (run.code !== 0) throw new AgentError("installer", `installer: ${binary} failed (${run.code !== null ? `exit ${run.code}` : `signal ${run.signal}`})${tail}`, { binary, exitCode: run.code, signal: run.signal, last: run.last });
  let text: string;
  try {
    // Inside the target root (a link in the image must not reach the initramfs) and capped.
    text = await readBoundedText(resolveInRoot(o.root, BOOT_INFO_PATH), "installerOutput");
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    throw new AgentError("installer", `installer: ${binary} succeeded but ${missing ? "left no" : "left an unreadable"} ${BOOT_INFO_PATH}: ${(e as Error).message}`, { binary });
  }
  let bootInfo: BootInfo;
  try {
    bootInfo = parseBootInfo(text);
  } catch (e) {
    if (e instanceof BootInfoError) throw new AgentError("installer", `installer: ${BOOT_INFO_PATH} written by ${binary}: ${e.message}`, { binary });
    throw e;
  }
  logEvent(o.log, "install.installer.done", { binary, ms, lines: run.lines, kernel: bootInfo.kernel, initrd: bootInfo.initrd, bootloaderId: bootInfo.bootloaderId }, `installer: ${binary} done in ${ms} ms; boot ${bootInfo.kernel}`);
  return { binary, ms, lines: run.lines, bootInfo };
}
