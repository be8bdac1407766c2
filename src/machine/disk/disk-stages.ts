/**
 * The two stage functions the boot flow calls, wired to the real machine: wipe every
 * disk before Waiting, and build the allocation's layout after it. Each reads the
 * disk inventory from sysfs itself, so the flow passes only what it has.
 */
import type { FilesystemLayout } from "../../gen/metalstack/api/v2/filesystem_pb.ts";
import type { Logger } from "../../platform/log/logger.ts";
import { logEvent } from "../../platform/log/logger.ts";
import type { DiskFacts } from "./disk-facts.ts";
import { systemDiskIo, type DiskIo } from "./io.ts";
import { applyLayout, type AppliedLayout } from "./layout-run.ts";
import { readDisks } from "./disk-sysfs.ts";
import type { WipeMode } from "./wipe-plan.ts";
import { wipeDisks, type WipeReport } from "./wipe-run.ts";

/** metal-hammer's chroot for the new system (metal-stack/metal-hammer@ec148e3 cmd/root.go:65 chrootPrefix). */
export const TARGET_ROOT = "/rootfs";

export interface StageOptions {
  readonly log: Logger;
  readonly sysRoot?: string;
  readonly io?: DiskIo;
  /** Only these disks (kernel names); default every disk. */
  readonly only?: readonly string[];
}

export async function inventoryDisks(o: StageOptions): Promise<DiskFacts[]> {
  const all = await readDisks(o.sysRoot ?? "/sys");
  const disks = o.only ? all.filter((d) => o.only?.includes(d.name)) : all;
  logEvent(
    o.log,
    "disk.inventory",
    {
      disks: disks.map((d) => ({
        name: d.name,
        size: d.sizeBytes,
        rotational: d.rotational,
        discard: d.discard,
        nvme: d.nvme,
        removable: d.removable,
        readOnly: d.readOnly,
        model: d.model,
        serial: d.serial,
      })),
    },
    disks.length > 0 ? `${disks.length} disk(s): ${disks.map((d) => d.name).join(", ")}` : "no disks found (is the disk controller's driver in the initramfs module list?)",
    disks.length > 0 ? "info" : "warn",
  );
  return disks;
}

const partitionsOf =
  (sysRoot: string) =>
  async (name: string): Promise<string[]> =>
    ((await readDisks(sysRoot)).find((d) => d.name === name)?.partitions ?? []).map((p) => p.name);

/** Wipes every disk (METAL_WIPE mode); throws AgentError("wipe_failed") naming the disks that could not be wiped. */
export async function wipeMachineDisks(o: StageOptions & { readonly mode: WipeMode }): Promise<WipeReport> {
  const disks = await inventoryDisks(o);
  return wipeDisks(disks, { mode: o.mode, io: o.io ?? systemDiskIo(), log: o.log, partitions: partitionsOf(o.sysRoot ?? "/sys") });
}

/**
 * Builds the allocation's FilesystemLayout (the generated message, as decoded from the
 * apiserver's answer or a layout file) on the disks and mounts it under `targetRoot`;
 * throws layout_refused before writing anything when it does not fit, layout_failed
 * naming the step that failed.
 */
export async function applyAllocationLayout(layout: FilesystemLayout, o: StageOptions & { readonly version: string; readonly targetRoot?: string }): Promise<AppliedLayout> {
  const disks = await inventoryDisks(o);
  return applyLayout(layout, disks, { io: o.io ?? systemDiskIo(), log: o.log, targetRoot: o.targetRoot ?? TARGET_ROOT, version: o.version });
}
