import { describe, expect, test } from "bun:test";
import { disk } from "./helpers.ts";
import type { NvmeCaps } from "../../../src/machine/disk/nvme-id.ts";
import { methodName, planWipe, promisesZeroes } from "../../../src/machine/disk/wipe-plan.ts";

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
