/**
 * Which wipe methods to try on a disk, fastest that really erases first, chosen only
 * from what the device says it supports (sysfs facts, NVMe Identify). Pure. The
 * executor (wipe-run.ts) tries them in order and verifies each; a method that fails
 * or does not verify hands over to the next.
 *
 * NVMe: crypto format (FNA bit 2), sanitize crypto erase, format with user data erase,
 * sanitize block erase. Devices with discard: secure discard, write-zeroes (SSDs),
 * discard. Last: `overwrite` (METAL_WIPE=overwrite: every block written with zeroes) or
 * `metadata` (METAL_WIPE=fast: signatures, md superblocks, LVM labels, partition tables
 * at both ends; the data blocks stay).
 */
import type { DiskFacts } from "./facts.ts";
import type { NvmeCaps } from "./nvme-id.ts";

export type WipeMode = "fast" | "overwrite";

export type WipeMethod =
  | { readonly kind: "nvme-format"; readonly ses: 1 | 2 }
  | { readonly kind: "nvme-sanitize"; readonly action: "crypto" | "block" }
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
    default:
      return m.kind;
  }
}

export type WipePlan =
  | { readonly disk: string; readonly action: "wipe"; readonly methods: readonly WipeMethod[]; readonly notes: readonly string[] }
  | { readonly disk: string; readonly action: "skip"; readonly reason: string }
  | { readonly disk: string; readonly action: "refuse"; readonly reason: string };

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
  }
}

export function planWipe(d: DiskFacts, nvme: NvmeCaps | undefined, mode: WipeMode): WipePlan {
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
