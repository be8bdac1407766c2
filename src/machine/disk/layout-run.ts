/**
 * Runs a layout plan (layout-plan.ts): every step logged with its duration, bounded,
 * a failure naming the step; then reads each mounted filesystem's UUID (blkid) for
 * fstab and metal-hammer's legacy /etc/metal/disk.json, and returns the root UUID
 * (the filesystem mounted at "/") that machine-details needs.
 */
import { AgentError } from "../../platform/errors.ts";
import type { FilesystemLayout } from "../../gen/metalstack/api/v2/filesystem_pb.ts";
import type { Logger } from "../../platform/log/logger.ts";
import { logEvent } from "../../platform/log/logger.ts";
import type { DiskFacts } from "./disk-facts.ts";
import type { DiskIo } from "./io.ts";
import { planLayout, stepLine, type LayoutPlan, type LayoutStep, type PlannedFilesystem } from "./layout-plan.ts";

export interface ApplyOptions {
  readonly io: DiskIo;
  readonly log: Logger;
  /** Where the filesystems are mounted (metal-hammer: /rootfs). */
  readonly targetRoot: string;
  /** Written into fstab's header line. */
  readonly version: string;
  readonly toolTimeoutMs?: number;
}

export interface AppliedFilesystem extends PlannedFilesystem {
  readonly uuid: string | undefined;
}

export interface AppliedLayout {
  readonly targetRoot: string;
  readonly filesystems: readonly AppliedFilesystem[];
  /** UUID of the filesystem mounted at "/" (machine-details root_uuid). */
  readonly rootUuid: string;
  /** /etc/fstab for the installed system (write it with writeFstab after the installer ran). */
  readonly fstab: string;
  /** Mount points in mount order; unmount in reverse. */
  readonly mounts: readonly string[];
  readonly notes: readonly string[];
}

/** `blkid -o export` lines -> properties (UUID, TYPE, LABEL, PARTUUID, ...). */
export function parseBlkidExport(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const i = line.indexOf("=");
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

/** fstab lines as metal-hammer writes them: `spec file type opts freq passno`. */
export function renderFstab(fss: readonly AppliedFilesystem[], version: string): string {
  const lines = fss
    .filter((f) => f.path !== undefined)
    .map((f) => {
      const spec = f.format === "tmpfs" ? "tmpfs" : `UUID=${f.uuid ?? ""}`;
      const passno = f.path === "/" ? 1 : f.format === "tmpfs" ? 0 : 2;
      const opts = f.mountOptions.length > 0 ? f.mountOptions.join(",") : "defaults";
      return `${spec} ${f.path} ${f.format} ${opts} 0 ${passno}`;
    });
  return `# created by metal-hammer: ${JSON.stringify(version)}\n${lines.join("\n")}\n`;
}

/**
 * metal-hammer's legacy disk.json (pkg/api/api.go Disk/Partition, Go field names, two-space
 * indent): the filesystems labelled root, efi and varlib with their UUID.
 */
export function renderDiskJson(fss: readonly AppliedFilesystem[]): string {
  const partitions = fss
    .filter((f) => f.path !== undefined && ["root", "efi", "varlib"].includes(f.label))
    .map((f) => ({ Label: f.label, Filesystem: f.format, Properties: { UUID: f.uuid ?? "" } }));
  return JSON.stringify({ Device: "legacy", Partitions: partitions }, null, 2);
}

async function runStep(o: ApplyOptions, s: LayoutStep, n: number, total: number): Promise<void> {
  const t0 = o.io.now();
  const fail = (why: string): never => {
    logEvent(
      o.log,
      "disk.layout.step",
      { step: n, of: total, stage: s.stage, what: s.what, command: stepLine(s), ok: false, error: why },
      `layout step ${n}/${total} failed: ${s.what}`,
      "error",
    );
    throw new AgentError("layout_failed", `layout step ${n}/${total} (${s.what}) failed: ${why}`, { step: n, what: s.what, command: stepLine(s) });
  };
  if (s.kind === "exec") {
    const r = await o.io.run(s.argv, { timeoutMs: s.timeoutMs });
    if (r.timedOut) fail(`${stepLine(s)}: no answer within ${s.timeoutMs / 1000} s (killed)`);
    if (r.code !== 0) fail(`${stepLine(s)} exited ${r.code}: ${(r.stderr.trim() || r.stdout.trim()).split("\n").slice(-3).join(" / ")}`);
  } else if (s.kind === "mkdir") {
    await o.io.mkdir(s.path).catch((e: Error) => fail(`mkdir ${s.path}: ${e.message}`));
  } else {
    const end = t0 + s.timeoutMs;
    let delay = 20;
    if (!(await o.io.exists(s.path)))
      logEvent(
        o.log,
        "disk.layout.step",
        { step: n, of: total, stage: s.stage, what: s.what, waiting: s.path, timeoutMs: s.timeoutMs },
        `layout step ${n}/${total}: waiting up to ${s.timeoutMs / 1000} s for ${s.path}`,
      );
    while (!(await o.io.exists(s.path))) {
      if (o.io.now() >= end) fail(`${s.path} did not appear within ${s.timeoutMs / 1000} s`);
      await o.io.sleep(delay * (0.75 + Math.random() / 2));
      delay = Math.min(delay * 2, 500);
    }
  }
  logEvent(
    o.log,
    "disk.layout.step",
    { step: n, of: total, stage: s.stage, what: s.what, command: stepLine(s), ok: true, durationMs: Math.round(o.io.now() - t0) },
    `layout step ${n}/${total}: ${s.what}`,
  );
}

/** Runs a plan; the layout's filesystems end up mounted under plan.targetRoot. */
export async function runLayoutPlan(plan: LayoutPlan, o: ApplyOptions): Promise<AppliedLayout> {
  const total = plan.steps.length;
  for (const [i, s] of plan.steps.entries()) await runStep(o, s, i + 1, total);
  const fss: AppliedFilesystem[] = [];
  for (const f of plan.filesystems) {
    if (f.format === "tmpfs" || f.format === "none" || f.path === undefined) {
      fss.push({ ...f, uuid: undefined });
      continue;
    }
    const r = await o.io.run(["blkid", "-o", "export", f.device], { timeoutMs: o.toolTimeoutMs ?? 30_000 });
    const uuid = r.code === 0 ? parseBlkidExport(r.stdout).UUID : undefined;
    if (!uuid) throw new AgentError("layout_failed", `layout: no UUID for ${f.device} (${f.path}) after mkfs: blkid exited ${r.code} ${r.stderr.trim()}`, { device: f.device });
    fss.push({ ...f, uuid });
  }
  // planLayout refuses a layout without "/", and every mounted filesystem has a UUID by now.
  const root = fss.find((f) => f.path === "/") as AppliedFilesystem & { uuid: string };
  await o.io.writeFile(plan.targetRoot, "/etc/metal/disk.json", renderDiskJson(fss), 0o600);
  const applied: AppliedLayout = {
    targetRoot: plan.targetRoot,
    filesystems: fss,
    rootUuid: root.uuid,
    fstab: renderFstab(fss, o.version),
    mounts: plan.steps.flatMap((s) => (s.kind === "exec" && s.argv[0] === "mount" ? [s.argv.at(-1) as string] : [])),
    notes: plan.notes,
  };
  logEvent(o.log, "disk.layout.done", { rootUuid: applied.rootUuid, mounts: applied.mounts, steps: total }, `filesystem layout applied, root filesystem UUID ${applied.rootUuid}`);
  return applied;
}

/** Plans (refusing before anything is written) and runs the layout: the flow's stage function. */
export async function applyLayout(layout: FilesystemLayout, disks: readonly DiskFacts[], o: ApplyOptions): Promise<AppliedLayout> {
  const plan = planLayout(layout, disks, { targetRoot: o.targetRoot });
  logEvent(
    o.log,
    "disk.layout.plan",
    { layout: layout.id || layout.name, steps: plan.steps.length, notes: plan.notes },
    `filesystem layout ${layout.id || layout.name || "(no id)"}: ${plan.steps.length} steps`,
  );
  return runLayoutPlan(plan, o);
}

/** Writes <target>/etc/fstab (after the image's installer ran, as metal-hammer does), resolved inside the target. */
export async function writeFstab(a: AppliedLayout, io: DiskIo): Promise<void> {
  await io.writeFile(a.targetRoot, "/etc/fstab", a.fstab, 0o644);
}

/** Unmounts the layout's filesystems, deepest first; returns what could not be unmounted. */
export async function unmountLayout(a: AppliedLayout, io: DiskIo, timeoutMs = 60_000): Promise<string[]> {
  const failed: string[] = [];
  for (const m of [...a.mounts].reverse()) {
    const r = await io.run(["umount", m], { timeoutMs });
    if (r.code !== 0) failed.push(`${m}: ${r.stderr.trim()}`);
  }
  return failed;
}
