import { describe, expect, test } from "bun:test";
import { disk } from "./helpers.ts";
import type { NvmeCaps } from "../../../src/machine/disk/nvme-id.ts";
import { driveKind, methodName, planWipe, promisesZeroes, type WipeMethod } from "../../../src/machine/disk/wipe-plan.ts";
import { parseHdparmIdentify } from "../../../src/machine/disk/ata-id.ts";
import { parseScsiOpcodes } from "../../../src/machine/disk/scsi-id.ts";
import { MICRON, SEAGATE_OPCODES, WD5000, WD5000_LOCKED, WD80 } from "./drive-vectors.ts";

const caps = (over: Partial<NvmeCaps> = {}): NvmeCaps => ({
  format: false,
  formatCrypto: false,
  formatAllNamespaces: false,
  sanitizeCrypto: false,
  sanitizeBlock: false,
  sanitizeOverwrite: false,
  deallocatedReadsZero: false,
  model: "",
  ...over,
});
const names = (p: ReturnType<typeof planWipe>) => (p.action === "wipe" ? p.methods.map(methodName) : p.action);
const nvmeDisk = disk({ name: "nvme0n1", path: "/dev/nvme0n1", nvme: true, nvmeController: "nvme0", rotational: false, discard: true, writeZeroes: true });

describe("wipe planner", () => {
  test("NVMe with crypto format and sanitize: crypto first, then user-data erase, block erase, then discard", () => {
    const p = planWipe(nvmeDisk, caps({ format: true, formatCrypto: true, sanitizeCrypto: true, sanitizeBlock: true }), "fast");
    expect(names(p)).toEqual(["nvme-format-crypto", "nvme-sanitize-crypto", "nvme-format-erase", "nvme-sanitize-block", "discard-secure", "zeroout", "discard", "metadata"]);
  });

  test("NVMe with Format NVM only never tries crypto erase or sanitize it does not advertise", () => {
    const p = planWipe(nvmeDisk, caps({ format: true }), "fast");
    expect(names(p)).toEqual(["nvme-format-erase", "discard-secure", "zeroout", "discard", "metadata"]);
  });

  test("NVMe without Identify answer: no NVMe command, a note says why", () => {
    const p = planWipe(nvmeDisk, undefined, "fast");
    expect(names(p)).toEqual(["discard-secure", "zeroout", "discard", "metadata"]);
    expect(p.action === "wipe" && p.notes.join()).toMatch(/Identify not available/);
  });

  test("rotating disk without discard: metadata only in fast mode, a full overwrite when asked", () => {
    expect(names(planWipe(disk(), undefined, "fast"))).toEqual(["metadata"]);
    expect(names(planWipe(disk(), undefined, "overwrite"))).toEqual(["overwrite"]);
  });

  test("write-zeroes on a rotating disk is not taken as fast (it writes every block)", () => {
    expect(names(planWipe(disk({ writeZeroes: true }), undefined, "fast"))).toEqual(["metadata"]);
    expect(names(planWipe(disk({ writeZeroes: true, rotational: false }), undefined, "fast"))).toEqual(["zeroout", "metadata"]);
  });

  test("a device with discard gets secure discard first, then plain discard", () => {
    expect(names(planWipe(disk({ discard: true }), undefined, "overwrite"))).toEqual(["discard-secure", "discard", "overwrite"]);
  });

  test("a read-only disk is refused with the reason; a read-only removable medium is skipped", () => {
    const r = planWipe(disk({ readOnly: true }), undefined, "fast");
    expect(r).toMatchObject({ action: "refuse", disk: "sda" });
    expect(r.action === "refuse" && r.reason).toMatch(/read-only/);
    expect(planWipe(disk({ readOnly: true, removable: true }), undefined, "fast").action).toBe("skip");
  });

  test("zeroes are checked only where the method or the device promises them", () => {
    const d = disk();
    expect(promisesZeroes({ kind: "zeroout" }, d, undefined)).toBe(true);
    expect(promisesZeroes({ kind: "overwrite" }, d, undefined)).toBe(true);
    expect(promisesZeroes({ kind: "discard", secure: false }, d, undefined)).toBe(false);
    expect(promisesZeroes({ kind: "discard", secure: false }, disk({ discardZeroesData: true }), undefined)).toBe(true);
    expect(promisesZeroes({ kind: "nvme-format", ses: 1 }, nvmeDisk, caps({ deallocatedReadsZero: true }))).toBe(true);
    expect(promisesZeroes({ kind: "nvme-format", ses: 1 }, nvmeDisk, caps())).toBe(false);
  });
});

describe("wipe planner: ATA and SCSI drives (recorded outputs of real drives)", () => {
  const sata = (over: Parameters<typeof disk>[0] = {}) => disk({ model: "ATA X", ...over });
  const ata = (text: string) => parseHdparmIdentify(text);

  test("the WD5000BMVV (138 min): fast leaves its security erase out, naming the estimate; overwrite runs enhanced, then normal, before the host overwrite", () => {
    const fast = planWipe(sata(), undefined, "fast", { ata: ata(WD5000) });
    expect(names(fast)).toEqual(["metadata"]);
    expect(fast.action === "wipe" && fast.notes).toContain("ATA enhanced security erase takes 138 min by the drive's estimate: only with METAL_WIPE=overwrite");
    const slow = planWipe(sata(), undefined, "overwrite", { ata: ata(WD5000) });
    expect(names(slow)).toEqual(["ata-security-erase-enhanced", "ata-security-erase", "overwrite"]);
    expect(slow.action === "wipe" && slow.methods[0]).toEqual({ kind: "ata-security-erase", enhanced: true, estimateMinutes: 138, atLeast: false });
  });

  test("a drive estimating 2 min (an SED) gets its security erase in fast mode too", () => {
    const twoMin = WD5000.replace("138min for SECURITY ERASE UNIT. 138min for ENHANCED", "2min for SECURITY ERASE UNIT. 2min for ENHANCED");
    expect(names(planWipe(sata(), undefined, "fast", { ata: ata(twoMin) }))).toEqual(["ata-security-erase-enhanced", "ata-security-erase", "metadata"]);
  });

  test("the Micron 5300, frozen: no security erase (the note names the freeze, no suspend), SANITIZE crypto then block, then discard; overwrite adds sanitize overwrite", () => {
    const ssd = sata({ rotational: false, discard: true, writeZeroes: true });
    const p = planWipe(ssd, undefined, "fast", { ata: ata(MICRON) });
    expect(names(p)).toEqual(["ata-sanitize-crypto", "ata-sanitize-block", "discard-secure", "zeroout", "discard", "metadata"]);
    expect(p.action === "wipe" && p.notes.join("\n")).toMatch(/ATA security is frozen .*power-cycled; the agent makes no suspend cycle/);
    expect(names(planWipe(ssd, undefined, "overwrite", { ata: ata(MICRON) }))).toEqual([
      "ata-sanitize-crypto",
      "ata-sanitize-block",
      "ata-sanitize-overwrite",
      "discard-secure",
      "zeroout",
      "discard",
      "overwrite",
    ]);
  });

  test("the WD80EMAZ, frozen with SANITIZE overwrite only: fast has nothing of its own; overwrite runs the drive's sanitize overwrite first", () => {
    expect(names(planWipe(sata(), undefined, "fast", { ata: ata(WD80) }))).toEqual(["metadata"]);
    expect(names(planWipe(sata(), undefined, "overwrite", { ata: ata(WD80) }))).toEqual(["ata-sanitize-overwrite", "overwrite"]);
  });

  test("a locked drive is refused as locked: nothing can read or write it", () => {
    const p = planWipe(sata(), undefined, "fast", { ata: ata(WD5000_LOCKED) });
    expect(p).toEqual({
      disk: "sda",
      action: "refuse",
      locked: true,
      reason: "the drive is ATA-locked by a password the agent does not know: nothing can read or write it until it is unlocked",
    });
  });

  test("the Seagate SAS disk: sanitize crypto in fast mode, sanitize overwrite added in overwrite mode; FORMAT UNIT last", () => {
    const scsi = parseScsiOpcodes(SEAGATE_OPCODES);
    expect(names(planWipe(disk(), undefined, "fast", { scsi }))).toEqual(["scsi-sanitize-crypto", "metadata"]);
    expect(names(planWipe(disk(), undefined, "overwrite", { scsi }))).toEqual(["scsi-sanitize-crypto", "scsi-sanitize-overwrite", "overwrite"]);
    expect(names(planWipe(disk(), undefined, "overwrite", { scsi: { ...scsi, sanitizeBlock: true, formatUnit: true } }))).toEqual([
      "scsi-sanitize-crypto",
      "scsi-sanitize-block",
      "scsi-sanitize-overwrite",
      "scsi-format",
      "overwrite",
    ]);
  });

  test("zeroes are promised by normal security erase and the overwrites with zeroes, not by enhanced, crypto, block or FORMAT UNIT", () => {
    const d = disk();
    const z = (m: WipeMethod) => promisesZeroes(m, d, undefined);
    expect(z({ kind: "ata-security-erase", enhanced: false, estimateMinutes: 2, atLeast: false })).toBe(true);
    expect(z({ kind: "ata-security-erase", enhanced: true, estimateMinutes: 2, atLeast: false })).toBe(false);
    expect([z({ kind: "ata-sanitize", action: "overwrite" }), z({ kind: "scsi-sanitize", action: "overwrite" })]).toEqual([true, true]);
    expect([z({ kind: "ata-sanitize", action: "crypto" }), z({ kind: "scsi-sanitize", action: "block" }), z({ kind: "scsi-format" })]).toEqual([false, false, false]);
  });

  test("which command set a disk is asked in: SATA by the ATA vendor, other sd disks SCSI, virtio neither", () => {
    expect(driveKind(disk({ model: "ATA Micron_5300" }))).toBe("ata");
    expect(driveKind(disk({ model: "SEAGATE ST10000NM0226" }))).toBe("scsi");
    expect(driveKind(disk({ name: "vda", path: "/dev/vda" }))).toBe("other");
    expect(driveKind(nvmeDisk)).toBe("nvme");
  });
});
