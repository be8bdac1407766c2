/**
 * Total memory through systeminformation. On Linux mem() reads /proc/meminfo with
 * fs.readFile (no program is run), so it works in the initramfs and in the compiled
 * binary. Only the memory module is imported: the package's index pulls in every
 * module (and their shell-outs) for nothing.
 */
import { mem } from "systeminformation/lib/memory.js";

export async function memTotalBytes(): Promise<number | undefined> {
  const m = await mem();
  return Number.isFinite(m.total) && m.total > 0 ? m.total : undefined;
}
