/**
 * Reads a file from outside the agent (a path from the command line, a sysfs or procfs
 * attribute, the CA bundle) with a size cap: `/dev/zero` or an endless FIFO given as
 * `--file` ends in a clear error naming the file and the cap instead of growing the
 * process until the kernel panics (PID 1 is never OOM-killed). The caps are listed in
 * docs/bounds.md; this table is their one source.
 *
 * Reads in chunks with read(2) and never asks the file for its size first: procfs and
 * sysfs report 0 or 4096 whatever the content, character devices report 0.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";

const KiB = 1024;
const MiB = 1024 * KiB;

/** Caps per kind of source (bytes). docs/bounds.md lists them with their reasons. */
export const READ_CAPS = {
  /** A kernel cmdline given as --file (the kernel's own is at most a few KiB; lab files up to a few MiB). */
  cmdline: 8 * MiB,
  /** A text file given on the command line: kconfig --config/--modules/--fragment, net status --resolv-conf. */
  textFile: 16 * MiB,
  /** The CA bundle (METAL_CA); Debian's whole bundle is ~220 KiB. */
  caBundle: 4 * MiB,
  /** One sysfs or procfs attribute (DMI, sysctl, net class, /proc/self/mounts, modules.dep). */
  sysfs: 4 * MiB,
  /** The running kernel's config at boot: /proc/config.gz (read and unpacked) or the image's /boot/config-<release>; Debian's is 254 KiB unpacked. */
  kernelConfig: 4 * MiB,
  /** The PCI names (pci.ids): the initramfs's subset is ~180 KiB, Debian's whole file 1.3 MiB. */
  pciIds: 4 * MiB,
  /** A file the image's installer wrote for the agent (/etc/metal/boot-info.yaml: four short lines). */
  installerOutput: 1 * MiB,
} as const;

export type ReadCap = keyof typeof READ_CAPS;

/** A read went past its cap. `message` names the file and the cap. */
export class TooLargeError extends Error {
  override readonly name = "TooLargeError";
  constructor(
    readonly path: string,
    readonly cap: number,
  ) {
    super(`${path} is larger than the cap of ${formatBytes(cap)} (see docs/bounds.md)`);
  }
}

export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB (${n} bytes)`;
  if (n >= KiB && n % KiB === 0) return `${n / KiB} KiB (${n} bytes)`;
  return `${n} bytes`;
}

const CHUNK = 64 * KiB;

function capOf(cap: ReadCap | number): number {
  return typeof cap === "number" ? cap : READ_CAPS[cap];
}

/** The whole file, or TooLargeError once more than `cap` bytes arrived; other errors are the fs error. */
export async function readBounded(path: string, cap: ReadCap | number): Promise<Uint8Array> {
  const max = capOf(cap);
  const fh = await open(path, "r");
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const buf = new Uint8Array(Math.min(CHUNK, max + 1 - total));
      const { bytesRead } = await fh.read(buf, 0, buf.byteLength, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > max) throw new TooLargeError(path, max);
      chunks.push(buf.subarray(0, bytesRead));
    }
    return concat(chunks, total);
  } finally {
    await fh.close();
  }
}

/** Synchronous twin of readBounded for code that reads sysfs/procfs synchronously. */
export function readBoundedSync(path: string, cap: ReadCap | number): Uint8Array {
  const max = capOf(cap);
  const fd = openSync(path, "r");
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const buf = new Uint8Array(Math.min(CHUNK, max + 1 - total));
      const n = readSync(fd, buf, 0, buf.byteLength, null);
      if (n === 0) break;
      total += n;
      if (total > max) throw new TooLargeError(path, max);
      chunks.push(buf.subarray(0, n));
    }
    return concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** UTF-8 text of a bounded read (invalid bytes become U+FFFD). */
export async function readBoundedText(path: string, cap: ReadCap | number): Promise<string> {
  return new TextDecoder().decode(await readBounded(path, cap));
}

export function readBoundedTextSync(path: string, cap: ReadCap | number): string {
  return new TextDecoder().decode(readBoundedSync(path, cap));
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}
