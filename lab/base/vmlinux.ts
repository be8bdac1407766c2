/**
 * The uncompressed kernel (vmlinux) out of a bzImage, like the kernel's
 * scripts/extract-vmlinux: find each compressed-stream magic, decompress from there,
 * keep the first result that is an ELF file. Under TCG the ELF boots through its PVH
 * entry in well under a second, where the bzImage spends ~4 s decompressing itself.
 */
export interface Decoder {
  readonly name: string;
  readonly magic: readonly number[];
  /** argv that decompresses stdin to stdout, ignoring whatever follows the first stream. */
  readonly argv: readonly string[];
}

export const DECODERS: readonly Decoder[] = [
  { name: "xz", magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], argv: ["xz", "-dc", "--single-stream"] },
  { name: "zstd", magic: [0x28, 0xb5, 0x2f, 0xfd], argv: ["zstd", "-dcq"] },
  { name: "gzip", magic: [0x1f, 0x8b, 0x08], argv: ["gzip", "-dc"] },
];

/** Every offset where `magic` starts in `bytes`. Pure. */
export function findMagic(bytes: Uint8Array, magic: readonly number[], limit = 16): number[] {
  const out: number[] = [];
  const first = magic[0] as number;
  for (let i = bytes.indexOf(first); i >= 0 && out.length < limit; i = bytes.indexOf(first, i + 1)) {
    let ok = i + magic.length <= bytes.length;
    for (let j = 1; ok && j < magic.length; j++) ok = bytes[i + j] === magic[j];
    if (ok) out.push(i);
  }
  return out;
}

export const isElf = (b: Uint8Array): boolean => b.length > 4 && b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46;

/** Decompresses the first embedded stream that yields an ELF image. */
export async function extractVmlinux(bzImage: Uint8Array): Promise<{ elf: Uint8Array; decoder: string; offset: number }> {
  for (const d of DECODERS) {
    for (const off of findMagic(bzImage, d.magic)) {
      const p = Bun.spawn([...d.argv], { stdin: bzImage.subarray(off), stdout: "pipe", stderr: "ignore" });
      const out = new Uint8Array(await new Response(p.stdout).arrayBuffer());
      await p.exited;
      if (isElf(out)) return { elf: out, decoder: d.name, offset: off };
    }
  }
  throw new Error("no compressed ELF kernel found in the bzImage (tried xz, zstd, gzip)");
}

if (import.meta.main) {
  const [src, dst] = process.argv.slice(2);
  if (!src || !dst) {
    process.stderr.write("usage: bun lab/base/vmlinux.ts /boot/vmlinuz-<kver> <out>\n");
    process.exit(2);
  }
  const r = await extractVmlinux(new Uint8Array(await Bun.file(src).arrayBuffer()));
  await Bun.write(dst, r.elf);
  process.stdout.write(`vmlinux ${dst}: ${(r.elf.length / 1048576).toFixed(1)} MiB (${r.decoder} stream at offset ${r.offset})\n`);
}
