/**
 * How long a wipe may take by its own bounds: each method's bound on one disk, and the
 * whole wipe's (what the flow holds the hardware watchdog for, so that a legitimate
 * overwrite of a large disk is never cut by a reset while a stuck wipe still is). Pure.
 */
import { MIB, type DiskFacts } from "./facts.ts";
import type { NvmeCaps } from "./nvme-id.ts";
import { planWipe, type WipeMethod, type WipeMode } from "./wipe-plan.ts";

/** Assumed slowest write rate for the bounds of full-device methods (bytes/s). */
export const DEFAULT_MIN_RATE = 20 * MIB;
/** Bound for each quick tool call (wipefs, blkid, id-ctrl, blockdev, ...). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

const MIN = 60_000;
/** Tool calls around one method: the reread of the partition table and the verification (wipefs, blkid, two reads). */
const TOOLS_PER_METHOD = 4;
/** Tool calls before the methods: id-ctrl and id-ns (NVMe), the release of md/LVM holders (two). */
const TOOLS_BEFORE = 4;
/** An NVMe controller that advertises everything: the longest plan an NVMe disk can get. */
const EVERY_NVME_CAP: NvmeCaps = {
  format: true,
  formatCrypto: true,
  formatAllNamespaces: true,
  sanitizeCrypto: true,
  sanitizeBlock: true,
  sanitizeOverwrite: true,
  deallocatedReadsZero: true,
  model: "",
};

/** Bound for one method on one disk. */
export function methodTimeoutMs(m: WipeMethod, d: DiskFacts, minRate: number): number {
  const fullPass = Math.ceil((d.sizeBytes / minRate) * 1000);
  switch (m.kind) {
    case "nvme-format":
      return m.ses === 2 ? 10 * MIN : Math.max(10 * MIN, fullPass);
    case "nvme-sanitize":
      return m.action === "crypto" ? 10 * MIN : Math.max(10 * MIN, fullPass);
    case "discard":
      return 10 * MIN;
    case "zeroout":
    case "overwrite":
      return Math.max(10 * MIN, fullPass);
    case "metadata":
      return 5 * MIN;
  }
}

/**
 * The longest the wipe of these disks can take when every method of every plan runs to
 * its bound: disks in parallel, the namespaces of one NVMe controller one after the other
 * (as wipe-run.ts runs them), NVMe planned as if the controller advertised every method.
 */
export function wipeBoundMs(disks: readonly DiskFacts[], mode: WipeMode, o: { readonly minRate?: number; readonly toolTimeoutMs?: number } = {}): number {
  const minRate = o.minRate ?? DEFAULT_MIN_RATE;
  const tool = o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const perQueue = new Map<string, number>();
  for (const d of disks) {
    const plan = planWipe(d, d.nvme ? EVERY_NVME_CAP : undefined, mode);
    const ms = plan.action === "wipe" ? plan.methods.reduce((sum, m) => sum + methodTimeoutMs(m, d, minRate) + TOOLS_PER_METHOD * tool, 0) : 0;
    const queue = d.nvmeController ?? d.name;
    perQueue.set(queue, (perQueue.get(queue) ?? 0) + ms);
  }
  return TOOLS_BEFORE * tool + Math.max(0, ...perQueue.values());
}
