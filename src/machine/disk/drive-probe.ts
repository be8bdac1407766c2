/**
 * Asks a disk's drive what it can erase with: NVMe Identify (`nvme id-ctrl`, `id-ns`),
 * ATA IDENTIFY (`hdparm -I`) or SCSI REPORT SUPPORTED OPERATION CODES (`sg_opcodes
 * --compact`), by the disk's kind (wipe-plan.ts driveKind). Read-only and quick; an
 * answer that cannot be read is a note, and the planner then offers none of that
 * drive's own methods.
 */
import { parseHdparmIdentify } from "./ata-id.ts";
import type { DiskFacts } from "./disk-facts.ts";
import type { DiskIo } from "./io.ts";
import { parseNvmeCaps, type NvmeCaps } from "./nvme-id.ts";
import { parseScsiOpcodes } from "./scsi-id.ts";
import { lastLines } from "./wipe-step.ts";
import { driveKind, type DriveCaps } from "./wipe-plan.ts";

async function nvmeCaps(d: DiskFacts, io: DiskIo, t: number, notes: string[]): Promise<NvmeCaps | undefined> {
  if (!d.nvmeController) return undefined;
  const ctrl = await io.run(["nvme", "id-ctrl", `/dev/${d.nvmeController}`, "-o", "json"], { timeoutMs: t });
  if (ctrl.code !== 0) {
    notes.push(`nvme id-ctrl /dev/${d.nvmeController} failed (${ctrl.code}): ${ctrl.stderr.trim()}`);
    return undefined;
  }
  const ns = await io.run(["nvme", "id-ns", d.path, "-o", "json"], { timeoutMs: t });
  try {
    return parseNvmeCaps(ctrl.stdout, ns.code === 0 ? ns.stdout : undefined);
  } catch (e) {
    notes.push((e as Error).message);
    return undefined;
  }
}

/** Runs one read-only query; its output, or undefined with a note saying why not. */
async function ask(io: DiskIo, argv: string[], t: number, notes: string[]): Promise<string | undefined> {
  const r = await io.run(argv, { timeoutMs: t });
  if (r.code === 0 && !r.timedOut) return r.stdout;
  notes.push(`${argv.join(" ")} ${r.timedOut ? "did not answer" : `exited ${r.code}`}: ${lastLines(r.stderr.trim() || r.stdout.trim())}; the drive's own erase is not tried`);
  return undefined;
}

export async function probeDrive(d: DiskFacts, io: DiskIo, toolTimeoutMs: number): Promise<{ caps: DriveCaps; notes: string[] }> {
  const notes: string[] = [];
  const parsed = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (e) {
      notes.push(`${(e as Error).message}; the drive's own erase is not tried`);
      return undefined;
    }
  };
  switch (driveKind(d)) {
    case "nvme":
      return { caps: { nvme: await nvmeCaps(d, io, toolTimeoutMs, notes) }, notes };
    case "ata": {
      const out = await ask(io, ["hdparm", "-I", d.path], toolTimeoutMs, notes);
      const ata = out === undefined ? undefined : parsed(() => parseHdparmIdentify(out));
      if (out !== undefined && ata === undefined && notes.length === 0) notes.push("hdparm -I shows no ATA device: the drive's own erase is not tried");
      return { caps: { ata }, notes };
    }
    case "scsi": {
      const out = await ask(io, ["sg_opcodes", "--compact", d.path], toolTimeoutMs, notes);
      return { caps: { scsi: out === undefined ? undefined : parsed(() => parseScsiOpcodes(out)) }, notes };
    }
    case "other":
      return { caps: {}, notes };
  }
}
