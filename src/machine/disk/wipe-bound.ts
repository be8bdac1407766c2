/**
 * How long a wipe may take by its own bounds: each method's bound on one disk, and the
 * whole wipe's (what the flow holds the hardware watchdog for, so that a legitimate
 * overwrite of a large disk is never cut by a reset while a stuck wipe still is). Pure.
 */
import type { AtaCaps } from "./ata-id.ts";
import { MIB, type DiskFacts } from "./disk-facts.ts";
import type { NvmeCaps } from "./nvme-id.ts";
import type { ScsiCaps } from "./scsi-id.ts";
import { driveKind, FAST_ERASE_MINUTES, planWipe, type DriveCaps, type WipeMethod, type WipeMode } from "./wipe-plan.ts";

/** Assumed slowest write rate for the bounds of full-device methods (bytes/s). */
export const DEFAULT_MIN_RATE = 20 * MIB;
/** Bound for each quick tool call (wipefs, blkid, id-ctrl, blockdev, ...). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

const MIN = 60_000;
/** Tool calls around one method: the reread of the partition table and the verification (wipefs, blkid, two reads). */
const TOOLS_PER_METHOD = 4;
/** Tool calls before the methods: id-ctrl and id-ns (NVMe) or hdparm -I / sg_opcodes, the release of md/LVM holders (two). */
const TOOLS_BEFORE = 4;
/**
 * Tool calls a method makes besides the one its bound covers: the security erase sets the
 * password, checks the state after it and after the erase, and may unlock, disable and
 * check again; sanitize and format start with one call and may overrun by one poll.
 */
function extraTools(m: WipeMethod): number {
  switch (m.kind) {
    case "ata-security-erase":
      return 6;
    case "ata-sanitize":
    case "scsi-sanitize":
    case "scsi-format":
      return 2;
    default:
      return 0;
  }
}
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
/** An ATA drive that offers everything, its security erase estimate as given: the longest plans an ATA disk can get. */
const everyAta = (minutes: number, atLeast: boolean): AtaCaps => ({
  model: "",
  security: {
    supported: true,
    enabled: false,
    locked: false,
    frozen: false,
    countExpired: false,
    enhancedErase: true,
    eraseEstimate: { minutes, atLeast },
    enhancedEraseEstimate: { minutes, atLeast },
  },
  sanitize: { crypto: true, block: true, overwrite: true },
});
const EVERY_SCSI: ScsiCaps = { model: "", sanitizeCrypto: true, sanitizeBlock: true, sanitizeOverwrite: true, formatUnit: true };
/** IDENTIFY counts the erase time in 2-minute units up to 254; hdparm prints "more than 508min" above. */
const LONGEST_ATA_ESTIMATE = 508;
/** Drive estimates are rough: the bound of a security erase is 1.5 times the drive's estimate plus this. */
export const ERASE_MARGIN_MS = 10 * 60_000;

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
    case "ata-security-erase":
      // The drive's own estimate and a margin; one it could not state ("more than 508min") also gets a full pass.
      if (m.estimateMinutes === undefined) return Math.max(10 * MIN, fullPass);
      return m.atLeast ? Math.max(m.estimateMinutes * 1.5 * MIN + ERASE_MARGIN_MS, fullPass) : m.estimateMinutes * 1.5 * MIN + ERASE_MARGIN_MS;
    case "ata-sanitize":
    case "scsi-sanitize":
      return m.action === "crypto" ? 10 * MIN : Math.max(10 * MIN, fullPass);
    case "scsi-format":
      return Math.max(10 * MIN, fullPass);
  }
}

/** The drive capabilities that give a disk its longest plans (more than one: fast mode runs a short security erase, overwrite a long one). */
function worstCaps(d: DiskFacts): DriveCaps[] {
  switch (driveKind(d)) {
    case "nvme":
      return [{ nvme: EVERY_NVME_CAP }];
    case "ata":
      return [{ ata: everyAta(FAST_ERASE_MINUTES, false) }, { ata: everyAta(LONGEST_ATA_ESTIMATE, true) }];
    case "scsi":
      return [{ scsi: EVERY_SCSI }];
    case "other":
      return [{}];
  }
}

/**
 * The longest the wipe of these disks can take when every method of every plan runs to
 * its bound: disks in parallel, the namespaces of one NVMe controller one after the other
 * (as wipe-run.ts runs them), NVMe, ATA and SCSI disks planned as if the drive advertised
 * every method (an ATA disk both with a short and with the longest security erase
 * estimate). The ATA security erase is run once per disk (set password, erase, check).
 */
export function wipeBoundMs(
  disks: readonly DiskFacts[],
  mode: WipeMode,
  o: {
    readonly minRate?: number;
    readonly toolTimeoutMs?: number;
    /** What each disk's drive said (probeDrive, by kernel name); a disk not in it is planned with the worst case. */
    readonly drives?: ReadonlyMap<string, DriveCaps>;
  } = {},
): number {
  const minRate = o.minRate ?? DEFAULT_MIN_RATE;
  const tool = o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const perQueue = new Map<string, number>();
  for (const d of disks) {
    const ms = Math.max(
      ...(o.drives?.has(d.name) ? [o.drives.get(d.name) as DriveCaps] : worstCaps(d)).map((caps) => {
        const plan = planWipe(d, caps.nvme, mode, caps);
        return plan.action === "wipe" ? plan.methods.reduce((sum, m) => sum + methodTimeoutMs(m, d, minRate) + (TOOLS_PER_METHOD + extraTools(m)) * tool, 0) : 0;
      }),
    );
    const queue = d.nvmeController ?? d.name;
    perQueue.set(queue, (perQueue.get(queue) ?? 0) + ms);
  }
  return TOOLS_BEFORE * tool + Math.max(0, ...perQueue.values());
}
