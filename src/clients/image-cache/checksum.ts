/**
 * Checksum sidecar files as sha256sum/md5sum write them ("<hex>  <name>") or as a
 * bare hex digest (metal-images' .md5). Pure.
 */
export type ChecksumAlgo = "sha512" | "sha256" | "md5";

export const HEX_LEN: Record<ChecksumAlgo, number> = { sha512: 128, sha256: 64, md5: 32 };

export interface Checksum {
  readonly algo: ChecksumAlgo;
  readonly hex: string;
}

/** The digest from a sidecar's text, or an explanation of what is wrong. */
export function parseChecksumFile(text: string, algo: ChecksumAlgo): Checksum | { error: string } {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("#"));
  if (line === undefined) return { error: "empty checksum file" };
  const word = line.split(/\s+/)[0] ?? "";
  const hex = word.toLowerCase();
  const want = HEX_LEN[algo];
  if (!new RegExp(`^[0-9a-f]{${want}}$`).test(hex)) return { error: `expected ${want} hex digits (${algo}) at the start, got ${JSON.stringify(word.slice(0, 80))}` };
  return { algo, hex };
}
