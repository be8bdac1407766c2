/**
 * The compressors the kernel can unpack an initramfs with (CONFIG_RD_LZ4/ZSTD/GZIP),
 * as command lines that give the same bytes for the same input: no names or
 * timestamps in the output (gzip -n), one thread (zstd), and lz4's legacy frame
 * format, the only lz4 format the kernel's initramfs unpacker reads.
 */
export type Compression = "lz4" | "zstd" | "gzip" | "none";

export const COMPRESSIONS: readonly Compression[] = ["lz4", "zstd", "gzip", "none"];

export interface Compressor {
  readonly ext: string;
  /** argv that reads `input` and writes to stdout. */
  argv(input: string): string[];
  /** Kernel option needed to unpack it. */
  readonly kconfig: string | undefined;
}

export const COMPRESSORS: Readonly<Record<Compression, Compressor>> = {
  lz4: { ext: ".lz4", argv: (i) => ["lz4", "-l", "-9", "-q", "-c", i], kconfig: "CONFIG_RD_LZ4" },
  zstd: { ext: ".zst", argv: (i) => ["zstd", "-9", "-T1", "-q", "-c", i], kconfig: "CONFIG_RD_ZSTD" },
  gzip: { ext: ".gz", argv: (i) => ["gzip", "-9", "-n", "-c", i], kconfig: "CONFIG_RD_GZIP" },
  none: { ext: "", argv: (i) => ["cat", i], kconfig: undefined },
};

export function parseCompression(text: string): Compression {
  if ((COMPRESSIONS as readonly string[]).includes(text)) return text as Compression;
  throw new Error(`compression ${JSON.stringify(text)}: expected one of ${COMPRESSIONS.join(", ")}`);
}
