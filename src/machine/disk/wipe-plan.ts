/**
 * Which wipe methods to try on a disk, fastest that really erases first, chosen only
 * from what the device says it supports (sysfs facts, NVMe Identify). Pure. The
 * executor (wipe-run.ts) tries them in order and verifies each; a method that fails
 * or does not verify hands over to the next.
 *
 * NVMe: crypto format (FNA bit 2), sanitize crypto erase, format with user data erase,
 * sanitize block erase. ATA (`hdparm -I`): enhanced security erase, security erase,
 * SANITIZE crypto scramble, block erase, overwrite. SCSI (`sg_opcodes`): SANITIZE
 * crypto, block, overwrite, FORMAT UNIT. Devices with discard: secure discard,
 * write-zeroes (SSDs), discard. Last: `overwrite` (METAL_WIPE=overwrite: every block
 * written with zeroes) or `metadata` (METAL_WIPE=fast: signatures, md superblocks, LVM
 * labels, partition tables at both ends; the data blocks stay).
 *
 * `fast` takes the drive's own erase only where it finishes in minutes (crypto erase,
 * block erase, a security erase the drive estimates at FAST_ERASE_MINUTES or less: SEDs
 * say 2 min); `overwrite` also takes those that write every block (security erase of a
 * hard disk, sanitize overwrite, FORMAT UNIT): faster than the host writing zeroes, and
 * they reach the sectors the drive has remapped.
 */
import type { AtaCaps } from "./ata-id.ts";
import type { DiskFacts } from "./disk-facts.ts";
import type { NvmeCaps } from "./nvme-id.ts";
import type { ScsiCaps } from "./scsi-id.ts";

export type WipeMode = "fast" | "overwrite";

export type SanitizeAction = "crypto" | "block" | "overwrite";

/** The longest security erase (by the drive's own estimate) that METAL_WIPE=fast runs. */
export const FAST_ERASE_MINUTES = 10;

export type WipeMethod =
  | { readonly kind: "nvme-format"; readonly ses: 1 | 2 }
  | { readonly kind: "nvme-sanitize"; readonly action: "crypto" | "block" }
  /** `estimateMinutes`: the drive's IDENTIFY estimate; `atLeast`: it only said "more than". */
  | { readonly kind: "ata-security-erase"; readonly enhanced: boolean; readonly estimateMinutes: number | undefined; readonly atLeast: boolean }
  | { readonly kind: "ata-sanitize"; readonly action: SanitizeAction }
  | { readonly kind: "scsi-sanitize"; readonly action: SanitizeAction }
  | { readonly kind: "scsi-format" }
  | { readonly kind: "discard"; readonly secure: boolean }
  | { readonly kind: "zeroout" }
  | { readonly kind: "overwrite" }
  | { readonly kind: "metadata" };

export function methodName(m: WipeMethod): string {
  switch (m.kind) {
    case "nvme-format":
      return m.ses === 2 ? "nvme-format-crypto" : "nvme-format-erase";
    case "nvme-sanitize":
      return `nvme-sanitize-${m.action}`;
    case "discard":
      return m.secure ? "discard-secure" : "discard";
    case "ata-security-erase":
      return m.enhanced ? "ata-security-erase-enhanced" : "ata-security-erase";
    case "ata-sanitize":
    case "scsi-sanitize":
      return `${m.kind}-${m.action}`;
    default:
      return m.kind;
  }
}

export type WipePlan =
  | { readonly disk: string; readonly action: "wipe"; readonly methods: readonly WipeMethod[]; readonly notes: readonly string[] }
  | { readonly disk: string; readonly action: "skip"; readonly reason: string }
  /** `locked`: the drive is ATA-locked by a password the agent does not know (wipe_drive_locked). */
  | { readonly disk: string; readonly action: "refuse"; readonly reason: string; readonly locked?: boolean };

/** What the drive's own command set says (ATA IDENTIFY via hdparm, SCSI REPORT SUPPORTED OPERATION CODES via sg_opcodes). */
export interface DriveCaps {
  readonly nvme?: NvmeCaps | undefined;
  readonly ata?: AtaCaps | undefined;
  readonly scsi?: ScsiCaps | undefined;
}

/**
 * Which command set to ask: the kernel's sd driver names SATA (libata sets the SCSI
 * vendor "ATA"), SAS and USB disks `sdX`; virtio, MMC and others answer neither.
 */
export function driveKind(d: DiskFacts): "nvme" | "ata" | "scsi" | "other" {
  if (d.nvme) return "nvme";
  if (!/^sd[a-z]+$/.test(d.name)) return "other";
  return /^ATA( |$)/.test(d.model) ? "ata" : "scsi";
}

/** Whether the data really reads back as zeroes after this method (then the first and last MiB are checked). */
export function promisesZeroes(m: WipeMethod, d: DiskFacts, nvme: NvmeCaps | undefined): boolean {
  switch (m.kind) {
    case "zeroout":
    case "overwrite":
    case "metadata": // writes the first and last MiB itself
      return true;
    case "discard":
      return d.discardZeroesData || (nvme?.deallocatedReadsZero ?? false);
    case "nvme-format":
    case "nvme-sanitize":
      return nvme?.deallocatedReadsZero ?? false;
    case "ata-security-erase":
      // ACS: normal erase writes binary zeroes to all user data; enhanced writes a vendor pattern.
      return !m.enhanced;
    case "ata-sanitize":
    case "scsi-sanitize":
      // Overwrite is run with a pattern of zeroes; crypto and block erase leave what the drive chooses.
      return m.action === "overwrite";
    case "scsi-format":
      return false;
  }
}

/** ATA security erase (enhanced first), then ATA SANITIZE, fastest first; with the reasons for what is left out. */
function ataMethods(a: AtaCaps, mode: WipeMode, methods: WipeMethod[], notes: string[]): void {
  const s = a.security;
  if (s?.supported) {
    if (s.frozen) notes.push("ATA security is frozen (the firmware froze it at boot): no security erase until the drive is power-cycled; the agent makes no suspend cycle");
    else if (s.countExpired) notes.push("ATA security password attempts are used up (expired: security count): no security erase until the drive is power-cycled");
    else {
      if (s.enabled) notes.push("ATA security already has a user password set: the one-time password replaces it");
      for (const [enhanced, est] of [
        [true, s.enhancedErase ? s.enhancedEraseEstimate : undefined],
        [false, s.eraseEstimate],
      ] as const) {
        if (enhanced && !s.enhancedErase) continue;
        const name = enhanced ? "enhanced security erase" : "security erase";
        const quick = est !== undefined && !est.atLeast && est.minutes <= FAST_ERASE_MINUTES;
        if (mode === "fast" && !quick) {
          notes.push(
            `ATA ${name} ${est ? `takes ${est.atLeast ? "more than " : ""}${est.minutes} min by the drive's estimate` : "has no time estimate"}: only with METAL_WIPE=overwrite`,
          );
          continue;
        }
        methods.push({ kind: "ata-security-erase", enhanced, estimateMinutes: est?.minutes, atLeast: est?.atLeast ?? false });
      }
    }
  }
  const actions: SanitizeAction[] = ["crypto", "block", "overwrite"];
  for (const action of actions) {
    if (!a.sanitize[action]) continue;
    if (action === "overwrite" && mode === "fast") notes.push("ATA SANITIZE overwrite writes every block: only with METAL_WIPE=overwrite");
    else methods.push({ kind: "ata-sanitize", action });
  }
}

/** SCSI SANITIZE, fastest first, then FORMAT UNIT. */
function scsiMethods(c: ScsiCaps, mode: WipeMode, methods: WipeMethod[], notes: string[]): void {
  if (c.sanitizeCrypto) methods.push({ kind: "scsi-sanitize", action: "crypto" });
  if (c.sanitizeBlock) methods.push({ kind: "scsi-sanitize", action: "block" });
  const slow: WipeMethod[] = [];
  if (c.sanitizeOverwrite) slow.push({ kind: "scsi-sanitize", action: "overwrite" });
  if (c.formatUnit) slow.push({ kind: "scsi-format" });
  if (mode === "overwrite") methods.push(...slow);
  else if (slow.length > 0) notes.push(`${slow.map(methodName).join(", ")} write every block: only with METAL_WIPE=overwrite`);
}

export function planWipe(d: DiskFacts, nvme: NvmeCaps | undefined, mode: WipeMode, drive: Omit<DriveCaps, "nvme"> = {}): WipePlan {
  if (d.readOnly) {
    // Write-protected removable media (a BMC's virtual CD, an SD card with its switch set) are not the tenant's disks.
    if (d.removable) return { disk: d.name, action: "skip", reason: "removable and read-only (sysfs ro=1)" };
    return { disk: d.name, action: "refuse", reason: "the device is read-only (sysfs ro=1): no method can erase it" };
  }
  const methods: WipeMethod[] = [];
  const notes: string[] = [];
  if (d.nvme) {
    if (!nvme) notes.push("NVMe Identify not available: NVMe format and sanitize not tried");
    else {
      if (nvme.formatCrypto) methods.push({ kind: "nvme-format", ses: 2 });
      if (nvme.sanitizeCrypto) methods.push({ kind: "nvme-sanitize", action: "crypto" });
      if (nvme.format) methods.push({ kind: "nvme-format", ses: 1 });
      if (nvme.sanitizeBlock) methods.push({ kind: "nvme-sanitize", action: "block" });
      if (!nvme.format && !nvme.sanitizeCrypto && !nvme.sanitizeBlock) notes.push("the controller supports neither Format NVM nor sanitize (OACS, SANICAP)");
      if (nvme.formatAllNamespaces && methods.some((m) => m.kind === "nvme-format")) notes.push("format applies to every namespace of the controller (FNA)");
    }
  }
  if (drive.ata?.security?.locked)
    return {
      disk: d.name,
      action: "refuse",
      locked: true,
      reason: "the drive is ATA-locked by a password the agent does not know: nothing can read or write it until it is unlocked",
    };
  if (drive.ata) ataMethods(drive.ata, mode, methods, notes);
  if (drive.scsi) scsiMethods(drive.scsi, mode, methods, notes);
  if (d.discard) methods.push({ kind: "discard", secure: true });
  // Write-zeroes on a spinning disk writes every block: that is an overwrite, not fast.
  if (d.writeZeroes && !d.rotational) methods.push({ kind: "zeroout" });
  if (d.discard) methods.push({ kind: "discard", secure: false });
  if (mode === "overwrite") methods.push({ kind: "overwrite" });
  else {
    methods.push({ kind: "metadata" });
    if (methods.length === 1) notes.push("no erase the device supports: metadata only (METAL_WIPE=overwrite writes every block)");
  }
  return { disk: d.name, action: "wipe", methods, notes };
}
