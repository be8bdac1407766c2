import { describe, expect, test } from "bun:test";
import { COMPRESSORS, DEFAULT_COMPRESSION, fastestAt, parseCompression, parseLevel, timeToImageS } from "../../initramfs/lib/compress.ts";

describe("initramfs compressors", () => {
  test("lz4 uses the legacy frame format the kernel reads; gzip stores no name or time", () => {
    expect(COMPRESSORS.lz4.argv("in", 9)).toEqual(["lz4", "-l", "-9", "-q", "-c", "in"]);
    expect(COMPRESSORS.gzip.argv("in", 9)).toContain("-n");
    expect(COMPRESSORS.zstd.argv("in", 19)).toEqual(["zstd", "-19", "-T0", "-q", "-c", "in"]);
    // Levels above 19 need --ultra; xz keeps to CRC32 checks (the kernel's decoder takes no other) with the x86 BCJ filter.
    expect(COMPRESSORS.zstd.argv("in", 22)).toEqual(["zstd", "--ultra", "-22", "-T0", "-q", "-c", "in"]);
    expect(COMPRESSORS.xz.argv("in", 9)).toEqual(["xz", "--check=crc32", "--x86", "--lzma2=preset=9", "-T1", "-q", "-c", "in"]);
  });

  test("the default is zstd -19 (the fastest to the image at 1 Gbit/s); default levels: lz4 9, zstd 19, xz 9, gzip 9; others in range are taken", () => {
    expect(DEFAULT_COMPRESSION).toBe("zstd");
    expect(COMPRESSORS[DEFAULT_COMPRESSION].ext).toBe(".zst");
    expect(COMPRESSORS[DEFAULT_COMPRESSION].kconfig).toBe("CONFIG_RD_ZSTD");
    expect([parseLevel("lz4", undefined), parseLevel("zstd", undefined), parseLevel("xz", undefined), parseLevel("gzip", "")]).toEqual([9, 19, 9, 9]);
    expect(parseLevel("zstd", "12")).toBe(12);
  });

  test("unknown compressions and out-of-range levels are refused, naming what is allowed", () => {
    expect(() => parseCompression("bzip2")).toThrow('compression "bzip2": expected one of lz4, zstd, xz, gzip, none');
    expect(() => parseLevel("gzip", "12")).toThrow('compression level "12" for gzip: expected 1..9');
    expect(() => parseLevel("lz4", "fast")).toThrow(/expected 1..12/);
  });

  test("time to the image in memory: the download at the line rate, then the unpack; the fastest differs by line rate", () => {
    // 125 MB at 1 Gbit/s is 1 s of download.
    expect(timeToImageS(125_000_000, 0.5, 1)).toBeCloseTo(1.5, 9);
    expect(timeToImageS(125_000_000, 0.5, 10)).toBeCloseTo(0.6, 9);
    // Figures of the measurement (xz 49.6 MB / 2.47 s, zstd -19 55.2 MB / 0.25 s, lz4 -9 77.6 MB / 0.11 s).
    const rows = [
      { name: "xz", size: 49.6e6, unpackS: 2.47 },
      { name: "zstd", size: 55.2e6, unpackS: 0.25 },
      { name: "lz4", size: 77.6e6, unpackS: 0.11 },
    ];
    expect(fastestAt(rows, 1)).toBe("zstd");
    expect(fastestAt(rows, 10)).toBe("lz4");
    expect(fastestAt([], 1)).toBeUndefined();
    // Within 5 % of the fastest is a tie, and the smaller wins it: lz4 0.73 s against zstd 0.71 s.
    const close = [
      { name: "lz4", size: 77.6e6, unpackS: 0.11 },
      { name: "zstd", size: 55.2e6, unpackS: 0.27 },
    ];
    expect(fastestAt(close, 1, 0)).toBe("zstd");
    expect(
      fastestAt(
        [
          { name: "zstd", size: 55.2e6, unpackS: 0.3 },
          { name: "lz4", size: 77.6e6, unpackS: 0.11 },
        ],
        1,
        0,
      ),
    ).toBe("lz4");
    expect(
      fastestAt(
        [
          { name: "zstd", size: 55.2e6, unpackS: 0.3 },
          { name: "lz4", size: 77.6e6, unpackS: 0.11 },
        ],
        1,
      ),
    ).toBe("zstd");
  });
});
