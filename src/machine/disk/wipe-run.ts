/**
 * Wipes every disk in parallel: for each, the planner's methods in order (wipe-plan.ts),
 * each bounded and verified (wipe-verify.ts); a method that fails or does not verify
 * hands over to the next, with a log line saying why. A disk that no method erased
 * (or that is read-only) stops the whole wipe with one WipeFailedError ("wipe_failed")
 * naming every such disk and the method that failed last, after all disks finished.
 */
import { AgentError } from "../../platform/errors.ts";
import type { Logger } from "../../platform/log/logger.ts";
import { logEvent } from "../../platform/log/logger.ts";
import { humanBytes, MIB, type DiskFacts } from "./disk-facts.ts";
import type { DiskIo } from "./io.ts";
import { parseSanitizeLog, type NvmeCaps } from "./nvme-id.ts";
import { probeDrive } from "./drive-probe.ts";
import { ataSanitize, ataSecurityErase, DriveLeftLocked } from "./wipe-ata.ts";
import { methodName, planWipe, promisesZeroes, type WipeMethod, type WipeMode, type WipePlan } from "./wipe-plan.ts";
import { scsiFormat, scsiSanitize } from "./wipe-scsi.ts";
import { MethodFailed, pollUntilDone, tool, withHeartbeat } from "./wipe-step.ts";
import { verifyWiped } from "./wipe-verify.ts";
import { DEFAULT_MIN_RATE, DEFAULT_TOOL_TIMEOUT_MS, methodTimeoutMs } from "./wipe-bound.ts";

export interface WipeOptions {
  readonly mode: WipeMode;
  readonly io: DiskIo;
  readonly log: Logger;
  /** The kernel's current partitions of a disk (sysfs); used to verify. */
  readonly partitions: (disk: string) => Promise<readonly string[]>;
  /** Milliseconds between progress lines of a long overwrite. */
  readonly progressEveryMs?: number;
  /** Milliseconds between "still running" lines while one tool call erases (NVMe format, discard, zeroout; default 30 s). */
  readonly heartbeatMs?: number;
  /** Assumed slowest write rate for the overwrite bound (bytes/s; default 20 MiB/s). */
  readonly minRateBytesPerSec?: number;
  /** Bound for each quick tool call (wipefs, blkid, id-ctrl, ...). */
  readonly toolTimeoutMs?: number;
}

export interface WipeAttempt {
  readonly method: string;
  readonly ok: boolean;
  readonly error?: string;
  readonly durationMs: number;
  /** The method left the drive ATA-locked (no further method can read or write it). */
  readonly leftLocked?: boolean;
}

export interface DiskWipeResult {
  readonly disk: string;
  readonly path: string;
  readonly sizeBytes: number;
  readonly outcome: "wiped" | "skipped" | "failed";
  /** The method that erased the disk (wiped), or the last one tried (failed). */
  readonly method: string | undefined;
  readonly reason: string | undefined;
  readonly zeroesChecked: boolean;
  /** The drive is ATA-locked: by a password the agent does not know, or left so by a failed security erase it could not undo. */
  readonly locked: boolean;
  readonly attempts: readonly WipeAttempt[];
  readonly notes: readonly string[];
  readonly durationMs: number;
}

export interface WipeReport {
  readonly mode: WipeMode;
  readonly disks: readonly DiskWipeResult[];
  readonly durationMs: number;
}

/**
 * wipe_failed (wipe_drive_locked when a failed disk is ATA-locked: it needs a person),
 * with the whole report typed (`disk wipe --json` prints it); the log line's details carry it too.
 */
export class WipeFailedError extends AgentError {
  readonly report: WipeReport;

  constructor(message: string, report: WipeReport) {
    const failed = report.disks.filter((r) => r.outcome === "failed");
    super(failed.some((r) => r.locked) ? "wipe_drive_locked" : "wipe_failed", message, { disks: failed.map((r) => r.path), report });
    this.report = report;
  }
}

async function nvmeSanitize(o: WipeOptions, d: DiskFacts, action: "crypto" | "block", timeoutMs: number): Promise<void> {
  const ctrl = `/dev/${d.nvmeController}`;
  const t = o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  // SANACT (NVMe Base Spec, Sanitize command): 2 block erase, 4 crypto erase.
  await tool(o.io, ["nvme", "sanitize", ctrl, `--sanact=${action === "crypto" ? 4 : 2}`], t);
  await pollUntilDone(
    o,
    { disk: d.name, method: `nvme-sanitize-${action}`, device: ctrl },
    timeoutMs,
    async () => parseSanitizeLog(await tool(o.io, ["nvme", "sanitize-log", ctrl, "-o", "json"], t)),
    false,
  );
}

async function overwrite(o: WipeOptions, d: DiskFacts, timeoutMs: number): Promise<void> {
  const start = o.io.now();
  const every = o.progressEveryMs ?? 5_000;
  let next = start + every;
  await o.io.writeZeroes(d.path, 0, d.sizeBytes, 4 * MIB, (written) => {
    const now = o.io.now();
    if (now - start > timeoutMs) throw new MethodFailed(`overwrite not finished within ${Math.round(timeoutMs / 1000)} s (${humanBytes(written)} of ${humanBytes(d.sizeBytes)})`);
    if (now >= next || written === d.sizeBytes) {
      next = now + every;
      const rate = written / Math.max((now - start) / 1000, 0.001);
      logEvent(
        o.log,
        "disk.wipe.progress",
        { disk: d.name, method: "overwrite", written, total: d.sizeBytes, percent: Math.floor((written / d.sizeBytes) * 100), bytesPerSec: Math.round(rate) },
        `overwriting ${d.path}: ${humanBytes(written)} of ${humanBytes(d.sizeBytes)}`,
      );
    }
  });
}

async function metadata(o: WipeOptions, d: DiskFacts): Promise<void> {
  const t = o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  // Partitions first: an md superblock (metadata 1.0 sits at a partition's end) or an LVM
  // label inside a partition would come back when a new table puts a partition there again.
  for (const dev of [...d.partitions.map((p) => p.path), d.path]) {
    // Best effort: wipefs below removes the linux_raid_member signature too; mdadm also clears the bitmap/ppl area.
    const md = await o.io.run(["mdadm", "--zero-superblock", "--force", dev], { timeoutMs: t });
    if (md.code !== 0 && !/Unrecognised md component|No md superblock|Couldn't open/i.test(md.stderr)) {
      logEvent(o.log, "disk.wipe.fallback", { disk: d.name, method: "metadata", step: "mdadm --zero-superblock", device: dev, code: md.code }, md.stderr.trim(), "warn");
    }
    await tool(o.io, ["wipefs", "--all", "--force", dev], t);
  }
  // Partition tables at both ends (MBR and primary GPT at the start, the backup GPT at the end).
  const span = Math.min(MIB, d.sizeBytes);
  await o.io.writeZeroes(d.path, 0, span, span);
  await o.io.writeZeroes(d.path, d.sizeBytes - span, span, span);
}

/** One tool call that erases the whole device, with a heartbeat line while it runs. */
async function eraseCall(o: WipeOptions, d: DiskFacts, m: WipeMethod, argv: string[], timeoutMs: number): Promise<void> {
  await withHeartbeat(o, { disk: d.name, device: d.path, method: methodName(m), tool: argv[0] as string }, timeoutMs, () => tool(o.io, argv, timeoutMs));
}

const drive = (o: WipeOptions) => ({
  io: o.io,
  log: o.log,
  toolTimeoutMs: o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
  ...(o.heartbeatMs === undefined ? {} : { heartbeatMs: o.heartbeatMs }),
});

/** Runs one wipe method on one disk, without verification (wipeDisks verifies; bench/wipe.ts times it). */
export async function runMethod(o: WipeOptions, d: DiskFacts, m: WipeMethod, timeoutMs: number): Promise<void> {
  switch (m.kind) {
    case "nvme-format":
      await eraseCall(o, d, m, ["nvme", "format", d.path, `--ses=${m.ses}`, "--force", `--timeout=${timeoutMs}`], timeoutMs + 30_000);
      return;
    case "nvme-sanitize":
      await nvmeSanitize(o, d, m.action, timeoutMs);
      return;
    case "ata-security-erase":
      await ataSecurityErase(drive(o), d, m.enhanced, methodName(m), timeoutMs);
      return;
    case "ata-sanitize":
      await ataSanitize(drive(o), d, m.action, methodName(m), timeoutMs);
      return;
    case "scsi-sanitize":
      await scsiSanitize(drive(o), d, m.action, methodName(m), timeoutMs);
      return;
    case "scsi-format":
      await scsiFormat(drive(o), d, methodName(m), timeoutMs);
      return;
    case "discard":
      await eraseCall(o, d, m, ["blkdiscard", "--force", ...(m.secure ? ["--secure"] : []), d.path], timeoutMs);
      return;
    case "zeroout":
      await eraseCall(o, d, m, ["blkdiscard", "--force", "--zeroout", d.path], timeoutMs);
      return;
    case "overwrite":
      await overwrite(o, d, timeoutMs);
      return;
    case "metadata":
      await metadata(o, d);
      return;
  }
}

async function wipeOne(d: DiskFacts, o: WipeOptions): Promise<DiskWipeResult> {
  const t0 = o.io.now();
  const notes: string[] = [];
  const probed = await probeDrive(d, o.io, o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
  notes.push(...probed.notes);
  const caps = probed.caps.nvme;
  const plan: WipePlan = planWipe(d, caps, o.mode, probed.caps);
  const base = { disk: d.name, path: d.path, sizeBytes: d.sizeBytes };
  if (plan.action !== "wipe") return notWiped(d, o, plan, base, notes);
  notes.push(...plan.notes);
  logEvent(
    o.log,
    "disk.wipe.plan",
    { disk: d.name, size: d.sizeBytes, methods: plan.methods.map(methodName), notes },
    `${d.path}: will try ${plan.methods.map(methodName).join(", ")}`,
  );
  const attempts: WipeAttempt[] = [];
  const minRate = o.minRateBytesPerSec ?? DEFAULT_MIN_RATE;
  for (const m of plan.methods) {
    const tried = await tryMethod(d, o, m, caps, minRate);
    attempts.push(tried.attempt);
    if (tried.attempt.ok)
      return {
        ...base,
        outcome: "wiped",
        method: tried.attempt.method,
        reason: undefined,
        zeroesChecked: tried.zeroes,
        locked: false,
        attempts,
        notes,
        durationMs: Math.round(o.io.now() - t0),
      };
    // A locked drive refuses every read and write: the methods after this one cannot help.
    if (tried.attempt.leftLocked) break;
  }
  const last = attempts.at(-1);
  const locked = last?.leftLocked === true;
  logEvent(
    o.log,
    "disk.wipe.failed",
    { disk: d.name, method: last?.method, error: last?.error, locked },
    `${d.path}: ${locked ? "left ATA-locked" : "no method erased it"}`,
    "error",
  );
  return { ...base, outcome: "failed", method: last?.method, reason: last?.error, zeroesChecked: false, locked, attempts, notes, durationMs: Math.round(o.io.now() - t0) };
}

/** A disk the plan skips (or cannot wipe): logged, no method run. */
function notWiped(
  d: DiskFacts,
  o: WipeOptions,
  plan: Exclude<WipePlan, { action: "wipe" }>,
  base: Pick<DiskWipeResult, "disk" | "path" | "sizeBytes">,
  notes: string[],
): DiskWipeResult {
  logEvent(
    o.log,
    plan.action === "skip" ? "disk.wipe.plan" : "disk.wipe.failed",
    { disk: d.name, action: plan.action, reason: plan.reason },
    `${d.path}: ${plan.action === "skip" ? "skipped" : "cannot wipe"}: ${plan.reason}`,
    plan.action === "skip" ? "info" : "error",
  );
  const locked = plan.action === "refuse" && plan.locked === true;
  return {
    ...base,
    outcome: plan.action === "skip" ? "skipped" : "failed",
    method: undefined,
    reason: plan.reason,
    zeroesChecked: false,
    locked,
    attempts: [],
    notes,
    durationMs: 0,
  };
}

/** One method, bounded, then the partition table re-read and the result verified; a failure is the fallback's warning. */
async function tryMethod(d: DiskFacts, o: WipeOptions, m: WipeMethod, caps: NvmeCaps | undefined, minRate: number): Promise<{ attempt: WipeAttempt; zeroes: boolean }> {
  const name = methodName(m);
  const timeoutMs = methodTimeoutMs(m, d, minRate);
  const s = o.io.now();
  logEvent(o.log, "disk.wipe.method", { disk: d.name, method: name, timeoutMs }, `${d.path}: ${name} (bound ${Math.round(timeoutMs / 1000)} s)`);
  let error: string | undefined;
  let leftLocked = false;
  try {
    await runMethod(o, d, m, timeoutMs);
    // The kernel must forget the old partitions; NVMe format rescans by itself, the rest needs BLKRRPART.
    await o.io.run(["blockdev", "--rereadpt", d.path], { timeoutMs: o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS });
    const zeroes = promisesZeroes(m, d, caps);
    const problems = await verifyWiped(o.io, d, { zeroes, partitions: () => o.partitions(d.name), timeoutMs: o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS });
    if (problems.length > 0) error = `verify: ${problems.join("; ")}`;
    else {
      const durationMs = Math.round(o.io.now() - s);
      logEvent(
        o.log,
        "disk.wipe.done",
        { disk: d.name, method: name, durationMs, zeroesChecked: zeroes },
        `${d.path}: wiped by ${name} in ${(durationMs / 1000).toFixed(1)} s, verified`,
      );
      return { attempt: { method: name, ok: true, durationMs }, zeroes };
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    leftLocked = e instanceof DriveLeftLocked;
  }
  const attempt: WipeAttempt = { method: name, ok: false, error, durationMs: Math.round(o.io.now() - s), ...(leftLocked ? { leftLocked } : {}) };
  logEvent(o.log, "disk.wipe.fallback", { disk: d.name, method: name, error }, `${d.path}: ${name} did not erase: ${error}`, "warn");
  return { attempt, zeroes: false };
}

/**
 * Arrays and volumes still active on the disks (a second run in the same boot, or
 * something assembled them) keep the devices busy: deactivate every LVM volume group and
 * stop every md array first. Best effort; a disk still busy then fails its methods.
 */
async function release(disks: readonly DiskFacts[], o: WipeOptions): Promise<void> {
  const held = disks.filter((d) => d.holders.length > 0);
  if (held.length === 0) return;
  const t = o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  logEvent(
    o.log,
    "disk.wipe.plan",
    { release: held.map((d) => ({ disk: d.name, holders: d.holders })) },
    `deactivating what holds ${held.map((d) => `${d.name} (${d.holders.join(", ")})`).join(", ")}`,
  );
  for (const argv of [
    ["lvm", "vgchange", "--activate", "n"],
    ["mdadm", "--stop", "--scan"],
  ]) {
    const r = await o.io.run(argv, { timeoutMs: t });
    if (r.code !== 0) logEvent(o.log, "disk.wipe.fallback", { step: argv.join(" "), code: r.code }, `${argv.join(" ")} exited ${r.code}: ${r.stderr.trim()}`, "warn");
  }
}

/** Wipes all disks in parallel; throws a WipeFailedError naming each disk that failed, with the report. */
export async function wipeDisks(disks: readonly DiskFacts[], o: WipeOptions): Promise<WipeReport> {
  const t0 = o.io.now();
  await release(disks, o);
  // Namespaces of one NVMe controller one after the other: a format or sanitize may cover all of them (FNA, sanitize is per controller).
  const queues = new Map<string, Promise<unknown>>();
  const results = await Promise.all(
    disks.map((d) => {
      if (!d.nvmeController) return wipeOne(d, o);
      const run = (queues.get(d.nvmeController) ?? Promise.resolve()).then(() => wipeOne(d, o));
      queues.set(
        d.nvmeController,
        run.catch(() => undefined),
      );
      return run;
    }),
  );
  const report: WipeReport = { mode: o.mode, disks: results, durationMs: Math.round(o.io.now() - t0) };
  const failed = results.filter((r) => r.outcome === "failed");
  if (failed.length > 0) {
    const what = failed.map((r) => `${r.path} (${r.method ?? "no method"}): ${r.reason}`).join("; ");
    throw new WipeFailedError(`wipe failed: ${what}`, report);
  }
  return report;
}
