/**
 * The ATA drive's own erase, through hdparm: SECURITY ERASE UNIT (normal or enhanced)
 * and SANITIZE (crypto scramble, block erase, overwrite with zeroes).
 *
 * Security erase needs a user password set first. It is a one-time random password,
 * held only in memory for this method: hdparm gets it on stdin
 * (`--security-prompt-for-password`; getpass() reads stdin when the process has no
 * controlling terminal, so the call runs under `setsid`), never in argv, which
 * /proc/<pid>/cmdline shows to every process. hdparm echoes it on stdout ("Issuing
 * SECURITY_SET_PASS command, password=..."): every answer is scrubbed of it before it
 * reaches an error, a log line or a report. After the erase the security state must be
 * back to "not enabled"; otherwise (and after any failure once the password is set) the
 * drive is unlocked and its password disabled with the one-time password, and if even
 * that fails the drive is reported left locked (wipe_drive_locked), never silently.
 */
import type { Logger } from "../../platform/log/logger.ts";
import { parseAtaSanitizeStatus, parseAtaSecurity, type AtaSecurity } from "./ata-id.ts";
import type { DiskFacts } from "./disk-facts.ts";
import type { DiskIo, ToolResult } from "./io.ts";
import type { SanitizeAction } from "./wipe-plan.ts";
import { lastLines, MethodFailed, pollUntilDone, tool, withHeartbeat } from "./wipe-step.ts";

/** The drive is left ATA-locked (or will lock at its next power-on) and the one-time password could not clear it. */
export class DriveLeftLocked extends MethodFailed {}

/** What stands in a message where hdparm echoed the password. */
export const PASSWORD_SHOWN = "<one-time password>";

const PASSWORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** 20 random letters and digits (hdparm takes up to 32; a newline would end getpass's line). */
export function oneTimePassword(random: (a: Uint8Array) => Uint8Array = (a) => crypto.getRandomValues(a)): string {
  // 62 * 4 = 248: bytes from 248 up are dropped so every character is equally likely.
  let out = "";
  while (out.length < 20) for (const b of random(new Uint8Array(32))) if (b < 248 && out.length < 20) out += PASSWORD_CHARS[b % 62];
  return out;
}

interface AtaOptions {
  readonly io: DiskIo;
  readonly log: Logger;
  readonly toolTimeoutMs: number;
  readonly heartbeatMs?: number;
}

/** One hdparm security command with the password on stdin; its answer scrubbed of the password. */
async function secured(o: AtaOptions, d: DiskFacts, action: string, pw: string, timeoutMs: number): Promise<ToolResult> {
  // setsid -w: the tool is not a process group leader, so setsid execs hdparm in place (same PID, killed at the bound); were it one, setsid would fork and -w keeps the exit status.
  const argv = ["setsid", "-w", "hdparm", "--user-master", "u", "--security-prompt-for-password", action, d.path];
  const r = await o.io.run(argv, { timeoutMs, stdin: `${pw}\n` });
  const scrub = (s: string) => s.split(pw).join(PASSWORD_SHOWN);
  return { ...r, stdout: scrub(r.stdout), stderr: scrub(r.stderr) };
}

function failure(action: string, r: ToolResult, timeoutMs: number): string | undefined {
  if (r.timedOut) return `hdparm ${action}: no answer within ${Math.round(timeoutMs / 1000)} s (killed)`;
  if (r.code !== 0) return `hdparm ${action} exited ${r.code}: ${lastLines(r.stderr.trim() || r.stdout.trim())}`;
  return undefined;
}

async function securityState(o: AtaOptions, d: DiskFacts): Promise<AtaSecurity> {
  const s = parseAtaSecurity(await tool(o.io, ["hdparm", "-I", d.path], o.toolTimeoutMs));
  if (!s) throw new MethodFailed(`hdparm -I ${d.path}: no Security section any more`);
  return s;
}

const stateText = (s: AtaSecurity): string => (s.locked ? "locked" : s.enabled ? "enabled (it locks at the next power-on)" : "not enabled");

/**
 * Unlocks and disables a drive whose security this method may have enabled. Says
 * whether there was anything to clear, and what is left wrong (undefined: security is
 * "not enabled" again).
 */
async function clearPassword(o: AtaOptions, d: DiskFacts, pw: string): Promise<{ readonly cleared: boolean; readonly left?: string }> {
  const problems: string[] = [];
  let s = await securityState(o, d).catch((e: Error) => e);
  if (!(s instanceof Error) && !s.enabled && !s.locked) return { cleared: false };
  if (s instanceof Error || s.locked) {
    const r = await secured(o, d, "--security-unlock", pw, o.toolTimeoutMs);
    const f = failure("--security-unlock", r, o.toolTimeoutMs);
    if (f) problems.push(f);
  }
  const r = await secured(o, d, "--security-disable", pw, o.toolTimeoutMs);
  const f = failure("--security-disable", r, o.toolTimeoutMs);
  if (f) problems.push(f);
  s = await securityState(o, d).catch((e: Error) => e);
  if (!(s instanceof Error) && !s.enabled && !s.locked) return { cleared: true };
  return {
    cleared: false,
    left: `ATA security is still ${s instanceof Error ? `unknown (${s.message})` : stateText(s)} after unlock and disable with the one-time password${problems.length > 0 ? ` (${problems.join("; ")})` : ""}`,
  };
}

/** SECURITY SET PASSWORD, SECURITY ERASE UNIT, and the check that security is off again. */
export async function ataSecurityErase(o: AtaOptions, d: DiskFacts, enhanced: boolean, method: string, timeoutMs: number): Promise<void> {
  const pw = oneTimePassword();
  const erase = enhanced ? "--security-erase-enhanced" : "--security-erase";
  let error: string;
  try {
    const set = await secured(o, d, "--security-set-pass", pw, o.toolTimeoutMs);
    const setFailed = failure("--security-set-pass", set, o.toolTimeoutMs);
    if (setFailed) throw new MethodFailed(setFailed);
    const before = await securityState(o, d);
    if (!before.enabled) throw new MethodFailed(`hdparm --security-set-pass ran but ATA security is ${stateText(before)}: the drive did not take the password`);
    const r = await withHeartbeat(o, { disk: d.name, device: d.path, method, tool: `hdparm ${erase}` }, timeoutMs, () => secured(o, d, erase, pw, timeoutMs));
    const erased = failure(erase, r, timeoutMs);
    if (erased) throw new MethodFailed(erased);
    const after = await securityState(o, d);
    if (!after.enabled && !after.locked) return;
    error = `after hdparm ${erase} ATA security is ${stateText(after)}`;
  } catch (e) {
    error = (e as Error).message.split(pw).join(PASSWORD_SHOWN);
  }
  // Whatever failed once the password may be set: the drive must not stay (or become) locked.
  const c = await clearPassword(o, d, pw);
  if (c.left) throw new DriveLeftLocked(`${error}; ${c.left}`);
  throw new MethodFailed(c.cleared ? `${error}; the one-time password is disabled again` : error);
}

const SANITIZE_ARGS: Record<SanitizeAction, string[]> = {
  crypto: ["--sanitize-crypto-scramble"],
  block: ["--sanitize-block-erase"],
  overwrite: ["--sanitize-overwrite", "hex:00000000"],
};

/** SANITIZE (it runs in the drive after the command returns), polled with --sanitize-status until SD4 "succeeded". */
export async function ataSanitize(o: AtaOptions, d: DiskFacts, action: SanitizeAction, method: string, timeoutMs: number): Promise<void> {
  await tool(o.io, ["hdparm", "--yes-i-know-what-i-am-doing", ...SANITIZE_ARGS[action], d.path], o.toolTimeoutMs);
  await pollUntilDone(
    o,
    { disk: d.name, method, device: d.path },
    timeoutMs,
    async () => {
      const s = parseAtaSanitizeStatus(await tool(o.io, ["hdparm", "--sanitize-status", d.path], o.toolTimeoutMs));
      // SD1: the sanitize feature is frozen (SANITIZE FREEZE LOCK): the command cannot have run.
      return { state: s.state === "frozen" ? "failed" : s.state, progress: s.percent === undefined ? undefined : s.percent / 100 };
    },
    false,
  );
}
