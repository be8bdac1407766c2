import { describe, expect, test } from "bun:test";
import { COMPRESSORS, parseCompression, parseLevel } from "../../src/initramfs/compress.ts";

describe("initramfs compressors", () => {
  test("lz4 uses the legacy frame format the kernel reads; gzip stores no name or time", () => {
    expect(COMPRESSORS.lz4.argv("in", 9)).toEqual(["lz4", "-l", "-9", "-q", "-c", "in"]);
    expect(COMPRESSORS.gzip.argv("in", 9)).toContain("-n");
    expect(COMPRESSORS.zstd.argv("in", 19)).toEqual(["zstd", "-19", "-T0", "-q", "-c", "in"]);
  });

  test("default levels: lz4 9, zstd 19 (the size target), gzip 9; others in range are taken", () => {
    expect([parseLevel("lz4", undefined), parseLevel("zstd", undefined), parseLevel("gzip", "")]).toEqual([9, 19, 9]);
    expect(parseLevel("zstd", "12")).toBe(12);
  });

  test("unknown compressions and out-of-range levels are refused, naming what is allowed", () => {
    expect(() => parseCompression("bzip2")).toThrow('compression "bzip2": expected one of lz4, zstd, xz, gzip, none');
    expect(() => parseLevel("gzip", "12")).toThrow('compression level "12" for gzip: expected 1..9');
    expect(() => parseLevel("lz4", "fast")).toThrow(/expected 1..12/);
  });
});
