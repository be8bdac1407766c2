import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { NvmeIdError, parseNvmeCaps, parseSanitizeLog } from "../../../src/machine/disk/nvme-id.ts";

const fx = (n: string) => readFileSync(new URL(`../../fixtures/disk/nvme/${n}`, import.meta.url), "utf8");

describe("NVMe Identify answers", () => {
  test("a controller with crypto erase (FNA bit 2) and sanitize crypto + block erase", () => {
    const c = parseNvmeCaps(fx("pm983-id-ctrl.json"), fx("pm983-id-ns.json"));
    expect(c).toMatchObject({
      format: true,
      formatCrypto: true,
      formatAllNamespaces: false,
      sanitizeCrypto: true,
      sanitizeBlock: true,
      sanitizeOverwrite: false,
      deallocatedReadsZero: true,
    });
    expect(c.model).toBe("SAMSUNG MZQLB1T9HAJR-00007");
  });

  test("QEMU 7.2's NVMe controller, recorded in the lab (nvme-cli 2.3): Format NVM only, deallocated blocks read zero", () => {
    const c = parseNvmeCaps(fx("qemu-7.2-id-ctrl.json"), fx("qemu-7.2-id-ns.json"));
    expect(c).toMatchObject({
      format: true,
      formatCrypto: false,
      formatAllNamespaces: false,
      sanitizeCrypto: false,
      sanitizeBlock: false,
      deallocatedReadsZero: true,
      model: "QEMU NVMe Ctrl",
    });
  });

  test("a controller with Format NVM only: no crypto, no sanitize; without id-ns no zero promise", () => {
    const c = parseNvmeCaps(fx("format-only-id-ctrl.json"));
    expect(c).toMatchObject({ format: true, formatCrypto: false, sanitizeCrypto: false, sanitizeBlock: false, deallocatedReadsZero: false });
  });

  test("crypto erase needs Format NVM support too (FNA alone is not enough)", () => {
    expect(parseNvmeCaps('{"oacs":0,"fna":4}').formatCrypto).toBe(false);
  });

  test("hex strings are accepted as numbers", () => {
    expect(parseNvmeCaps('{"oacs":"0x2","sanicap":"0x1"}')).toMatchObject({ format: true, sanitizeCrypto: true });
  });

  test("bad answers name the command and the field", () => {
    expect(() => parseNvmeCaps("nope")).toThrow(NvmeIdError);
    expect(() => parseNvmeCaps('{"fna":4}')).toThrow(/id-ctrl: oacs/);
  });

  test("sanitize-log: running with progress, then done, then failed", () => {
    expect(parseSanitizeLog(fx("sanitize-log-running.json"))).toEqual({ state: "running", progress: 0.5 });
    expect(parseSanitizeLog('{"nvme0":{"sprog":65535,"sstat":257}}').state).toBe("done");
    expect(parseSanitizeLog('{"nvme0":{"sstat":3}}').state).toBe("failed");
    expect(() => parseSanitizeLog("{}")).toThrow(/sstat/);
  });
});
