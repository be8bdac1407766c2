/**
 * After a wipe: nothing left that blkid or wipefs recognises (filesystem, RAID and LVM
 * signatures, partition tables), no partitions in the kernel's view, and, where the
 * method promises it, the first and last MiB read as zeroes. Returns the problems
 * found (empty: verified).
 */
import type { DiskFacts } from "./disk-facts.ts";
import { MIB } from "./disk-facts.ts";
import type { DiskIo } from "./io.ts";

export interface VerifyOptions {
  readonly zeroes: boolean;
  /** The kernel's partitions of the disk now (sysfs), after the partition table was re-read. */
  readonly partitions: () => Promise<readonly string[]>;
  readonly timeoutMs: number;
}

export const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0);

export async function verifyWiped(io: DiskIo, d: DiskFacts, o: VerifyOptions): Promise<string[]> {
  const problems: string[] = [];
  const w = await io.run(["wipefs", "--no-act", "--noheadings", "--output", "TYPE,OFFSET", d.path], { timeoutMs: o.timeoutMs });
  if (w.code !== 0) problems.push(`wipefs exited ${w.code}: ${w.stderr.trim()}`);
  else if (w.stdout.trim() !== "")
    problems.push(
      `wipefs still finds ${w.stdout
        .trim()
        .split("\n")
        .map((l) => l.trim().replace(/\s+/, " at "))
        .join(", ")}`,
    );
  // blkid -p: exit 2 = nothing found; 0 = something (TYPE, PTTYPE) is there.
  const b = await io.run(["blkid", "-p", "-o", "export", d.path], { timeoutMs: o.timeoutMs });
  if (b.code === 0)
    problems.push(
      `blkid -p still finds ${b.stdout
        .trim()
        .split("\n")
        .filter((l) => /^(PT)?TYPE=/.test(l))
        .join(" ")}`,
    );
  else if (b.code !== 2) problems.push(`blkid -p exited ${b.code}: ${b.stderr.trim()}`);
  const parts = await o.partitions();
  if (parts.length > 0) problems.push(`the kernel still lists partitions ${parts.join(", ")}`);
  if (o.zeroes) {
    const span = Math.min(MIB, d.sizeBytes);
    for (const [where, off] of [
      ["first", 0],
      ["last", d.sizeBytes - span],
    ] as const) {
      const got = await io.read(d.path, off, span);
      if (got.length !== span) problems.push(`reading the ${where} MiB returned ${got.length} bytes`);
      else if (!isZero(got)) problems.push(`the ${where} MiB does not read as zeroes`);
    }
  }
  return problems;
}
