/**
 * `metal-hammer disk list|wipe|plan|apply`: the disk stages by hand, for the debug
 * shell and the QEMU tests. `wipe` and `apply` erase disks and need --yes.
 */
import type { Command } from "commander";
import { AgentError } from "../platform/errors.ts";
import { exitCodeFor } from "../platform/exit-codes.ts";
import { humanBytes, type DiskFacts } from "../machine/disk/disk-facts.ts";
import { parseLayoutFile } from "../machine/disk/layout-file.ts";
import { planLayout, stepLine } from "../machine/disk/layout-plan.ts";
import { unmountLayout, writeFstab } from "../machine/disk/layout-run.ts";
import { systemDiskIo } from "../machine/disk/io.ts";
import { applyAllocationLayout, inventoryDisks, TARGET_ROOT, wipeMachineDisks } from "../machine/disk/disk-stages.ts";
import { readDisks } from "../machine/disk/disk-sysfs.ts";
import { WipeFailedError, type WipeReport } from "../machine/disk/wipe-run.ts";
import type { FilesystemLayout } from "../gen/metalstack/api/v2/filesystem_pb.ts";
import { silentLogger } from "../platform/log/logger.ts";
import { versionInfo } from "../platform/version.ts";
import type { Context } from "../platform/io/context.ts";
import { printTable } from "./print.ts";

interface Common {
  sysfs: string;
  json?: boolean;
  disks?: string;
}

const only = (o: Common): string[] | undefined =>
  o.disks
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

function needYes(yes: boolean | undefined, what: string): void {
  if (!yes) throw new AgentError("usage", `disk ${what} erases disks: add --yes to go ahead`);
}

/** A layout file (src/machine/disk/layout-file.ts): FilesystemLayout protojson, or an allocation carrying it as `filesystemLayout`. */
async function readLayoutFile(ctx: Context, path: string): Promise<FilesystemLayout> {
  let text: string;
  try {
    text = new TextDecoder().decode(await ctx.io.readFile(path));
  } catch (e) {
    throw new AgentError("usage", `layout file ${path}: ${(e as Error).message}`);
  }
  return parseLayoutFile(path, text);
}

/** `--sysfs` and `--json`, which every disk command takes. */
const common = (c: Command) => c.option("--sysfs <dir>", "sysfs root", "/sys").option("--json", "print JSON");

function printDisks(ctx: Context, disks: readonly DiskFacts[]): void {
  printTable(
    ctx,
    ["NAME", "SIZE", "KIND", "DISCARD", "FLAGS", "MODEL", "SERIAL"],
    disks.map((d) => [
      d.name,
      humanBytes(d.sizeBytes),
      d.nvme ? "nvme" : d.rotational ? "rotating" : "ssd",
      d.discard ? `yes (granularity ${d.discardGranularity})` : "no",
      [d.readOnly ? "read-only" : "", d.removable ? "removable" : "", d.writeZeroes ? "write-zeroes" : "", d.partitions.length ? `${d.partitions.length} partitions` : ""]
        .filter((s) => s)
        .join(",") || "-",
      d.model || "-",
      d.serial || "-",
    ]),
  );
}

function registerList(disk: Command, ctx: Context): void {
  common(disk.command("list").description("the disks from sysfs: size, rotational, discard, NVMe, removable, read-only, model, serial")).action(async (o: Common) => {
    const disks = await readDisks(o.sysfs);
    if (o.json) return void ctx.io.out(JSON.stringify(disks) + "\n");
    printDisks(ctx, disks);
  });
}

function printWipe(ctx: Context, report: WipeReport): void {
  printTable(
    ctx,
    ["DISK", "SIZE", "OUTCOME", "METHOD", "SECONDS", "TRIED"],
    report.disks.map((r) => [
      r.path,
      humanBytes(r.sizeBytes),
      r.outcome,
      r.method ?? "-",
      (r.durationMs / 1000).toFixed(1),
      r.attempts.map((a) => `${a.method}:${a.ok ? "ok" : "failed"}`).join(" ") || "-",
    ]),
  );
}

function registerWipe(disk: Command, ctx: Context): void {
  common(
    disk
      .command("wipe")
      .description(
        `wipe every disk (or --disks) with the fastest method that really erases, verified; exit ${exitCodeFor("wipe_failed")} (wipe_failed) naming each disk that failed and the method, ${exitCodeFor("wipe_drive_locked")} (wipe_drive_locked) when a failed disk is ATA-locked`,
      ),
  )
    .option("--mode <mode>", "fast or overwrite (METAL_WIPE)", "fast")
    .option("--disks <names>", "only these disks (comma-separated kernel names)")
    .option("--yes", "really erase")
    .action(async (o: Common & { mode: string; yes?: boolean }) => {
      if (o.mode !== "fast" && o.mode !== "overwrite") throw new AgentError("usage", `--mode ${o.mode}: expected fast or overwrite`);
      needYes(o.yes, "wipe");
      const disks = only(o);
      const report = await wipeMachineDisks({ log: ctx.logger("info"), sysRoot: o.sysfs, mode: o.mode, ...(disks ? { only: disks } : {}) }).catch((e: unknown) => {
        // A failed wipe still prints its report with --json, then exits wipe_failed.
        const r = e instanceof WipeFailedError ? e.report : undefined;
        if (o.json && r) ctx.io.out(JSON.stringify(r) + "\n");
        throw e;
      });
      if (o.json) return void ctx.io.out(JSON.stringify(report) + "\n");
      printWipe(ctx, report);
    });
}

function registerPlan(disk: Command, ctx: Context): void {
  common(disk.command("plan <layout.json>").description("print the commands a FilesystemLayout (protojson) would run on this machine's disks, without running them"))
    .option("--target <dir>", "where the filesystems would be mounted", TARGET_ROOT)
    .action(async (file: string, o: Common & { target: string }) => {
      const layout = await readLayoutFile(ctx, file);
      const plan = planLayout(layout, await inventoryDisks({ log: silentLogger(), sysRoot: o.sysfs }), { targetRoot: o.target });
      if (o.json) return void ctx.io.out(JSON.stringify({ ...plan, lines: plan.steps.map(stepLine) }) + "\n");
      for (const n of plan.notes) ctx.io.out(`# note: ${n}\n`);
      ctx.io.out(plan.steps.map(stepLine).join("\n") + "\n");
    });
}

function registerApply(disk: Command, ctx: Context): void {
  common(disk.command("apply <layout.json>").description("build a FilesystemLayout (protojson) on the disks, mount it under --target, write disk.json and fstab"))
    .option("--target <dir>", "where the filesystems are mounted", TARGET_ROOT)
    .option("--unmount", "unmount again when done")
    .option("--yes", "really erase")
    .action(async (file: string, o: Common & { target: string; unmount?: boolean; yes?: boolean }) => {
      needYes(o.yes, "apply");
      const layout = await readLayoutFile(ctx, file);
      const io = systemDiskIo();
      const applied = await applyAllocationLayout(layout, { log: ctx.logger("info"), sysRoot: o.sysfs, io, targetRoot: o.target, version: versionInfo().version });
      await writeFstab(applied, io);
      const unmountFailed = o.unmount ? await unmountLayout(applied, io) : [];
      if (unmountFailed.length > 0) throw new AgentError("layout_failed", `unmount failed: ${unmountFailed.join("; ")}`);
      if (o.json) return void ctx.io.out(JSON.stringify(applied) + "\n");
      ctx.io.out(`root UUID ${applied.rootUuid}\n`);
      printTable(
        ctx,
        ["DEVICE", "FORMAT", "PATH", "LABEL", "UUID"],
        applied.filesystems.map((f) => [f.device, f.format, f.path ?? "-", f.label || "-", f.uuid ?? "-"]),
      );
    });
}

export function registerDisk(program: Command, ctx: Context): void {
  const disk = program.command("disk").description("disks: inventory, wipe, filesystem layout (plan and apply)");
  registerList(disk, ctx);
  registerWipe(disk, ctx);
  registerPlan(disk, ctx);
  registerApply(disk, ctx);
  disk.exitOverride().configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) });
}
