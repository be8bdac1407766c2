/**
 * The compressors the kernel can unpack an initramfs with (CONFIG_RD_LZ4/ZSTD/XZ/GZIP),
 * as command lines that give the same bytes for the same input: no names or
 * timestamps in the output (gzip -n), zstd's output does not depend on its thread
 * count (checked: -T1, -T2 and -T0 give identical bytes), and lz4's legacy frame
 * format, the only lz4 format the kernel's initramfs unpacker reads.
 */
export type Compression = "lz4" | "zstd" | "xz" | "gzip" | "none";

export const COMPRESSIONS: readonly Compression[] = ["lz4", "zstd", "xz", "gzip", "none"];

/**
 * What `make initramfs` builds (mk/initramfs.mk COMPRESS): zstd -19, chosen by time, not
 * size: the fastest from the first byte of the initrd download to the image unpacked at
 * 1 Gbit/s (bench/initramfs-size.ts, timeToImageS; docs/initramfs.md "The choice"):
 * ~0.7 s against xz -9's ~2.9 s (the 50 MB cap xz was chosen for cost every boot ~2 s).
 */
export const DEFAULT_COMPRESSION: Compression = "zstd";
/**
 * The size the default initramfs must stay within (bytes; test/initramfs/size.test.ts):
 * zstd -19 of today's image (55,161,682 bytes) + 10 %, so bloat is caught, not growth by a tool.
 */
export const SIZE_LIMIT_BYTES = 60_700_000;

/**
 * Seconds from the first byte of the initrd download to the image unpacked in memory:
 * the download at `gbitPerS` (the NIC's line rate, payload only) plus the unpack, done
 * after it (the kernel unpacks the initramfs once the boot loader handed it over). Pure.
 */
export function timeToImageS(bytes: number, unpackS: number, gbitPerS: number): number {
  return (bytes * 8) / (gbitPerS * 1e9) + unpackS;
}

/**
 * The row with the least timeToImageS at `gbitPerS`; rows within `tolerance` (5 %) of it
 * count as a tie (unpack times on a shared machine vary by more), and of those the
 * smallest wins: a boot loader that downloads below line rate favours it. Pure.
 */
export function fastestAt(rows: readonly { readonly name: string; readonly size: number; readonly unpackS: number }[], gbitPerS: number, tolerance = 0.05): string | undefined {
  const timed = rows.map((r) => ({ ...r, t: timeToImageS(r.size, r.unpackS, gbitPerS) }));
  const best = Math.min(...timed.map((r) => r.t));
  return timed.filter((r) => r.t <= best * (1 + tolerance)).sort((a, b) => a.size - b.size)[0]?.name;
}

export interface Compressor {
  readonly ext: string;
  /** Levels the tool accepts, and the default: lz4 -9 (fast to unpack), zstd -19 (the default: its 8 MiB window; -22 is 1.5 MB smaller but needs --ultra's 128 MiB window in the kernel), xz -9 (smallest), gzip -9. */
  readonly levels: readonly [min: number, max: number, dflt: number];
  /** argv that reads `input` and writes to stdout. */
  argv(input: string, level: number): string[];
  /** Kernel option needed to unpack it. */
  readonly kconfig: string | undefined;
}

export const COMPRESSORS: Readonly<Record<Compression, Compressor>> = {
  lz4: { ext: ".lz4", levels: [1, 12, 9], argv: (i, l) => ["lz4", "-l", `-${l}`, "-q", "-c", i], kconfig: "CONFIG_RD_LZ4" },
  // 20..22 need --ultra (windows up to 128 MiB; the kernel's unpacker allocates the window).
  zstd: { ext: ".zst", levels: [1, 22, 19], argv: (i, l) => ["zstd", ...(l > 19 ? ["--ultra"] : []), `-${l}`, "-T0", "-q", "-c", i], kconfig: "CONFIG_RD_ZSTD" },
  // The kernel's xz decoder takes only CRC32 (or no) checks; --x86 is the BCJ filter for machine code (XZ_DEC_X86). One thread: the same bytes everywhere.
  xz: { ext: ".xz", levels: [0, 9, 9], argv: (i, l) => ["xz", "--check=crc32", "--x86", `--lzma2=preset=${l}`, "-T1", "-q", "-c", i], kconfig: "CONFIG_RD_XZ" },
  gzip: { ext: ".gz", levels: [1, 9, 9], argv: (i, l) => ["gzip", `-${l}`, "-n", "-c", i], kconfig: "CONFIG_RD_GZIP" },
  none: { ext: "", levels: [0, 0, 0], argv: (i) => ["cat", i], kconfig: undefined },
};

export function parseCompression(text: string): Compression {
  if ((COMPRESSIONS as readonly string[]).includes(text)) return text as Compression;
  throw new Error(`compression ${JSON.stringify(text)}: expected one of ${COMPRESSIONS.join(", ")}`);
}

/** The level to use: the compressor's default, or `text` when given and in range. */
export function parseLevel(c: Compression, text: string | undefined): number {
  const [min, max, dflt] = COMPRESSORS[c].levels;
  if (text === undefined || text === "") return dflt;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`compression level ${JSON.stringify(text)} for ${c}: expected ${min}..${max}`);
  return n;
}
