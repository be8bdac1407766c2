/**
 * Total memory. On the machine (procfs at /proc) through systeminformation: on Linux
 * mem() reads /proc/meminfo with fs.readFile (no program is run), so it works in the
 * initramfs and in the compiled binary; only the memory module is imported (the
 * package's index pulls in every module and their shell-outs). For another procfs root
 * (`inventory --proc DIR`: a captured machine, the tests' fixture) MemTotal is read from
 * that root's meminfo, which systeminformation cannot be pointed at.
 */
import { mem } from "systeminformation/lib/memory.js";
import { join } from "node:path";
import { readBoundedText } from "../../platform/fs/read-bounded.ts";

/** MemTotal of a meminfo text in bytes, or undefined. Pure. */
export function memTotalOf(meminfo: string): number | undefined {
  const kib = Number(/^MemTotal:\s+(\d+) kB$/m.exec(meminfo)?.[1]);
  return Number.isFinite(kib) && kib > 0 ? kib * 1024 : undefined;
}

export async function memTotalBytes(procRoot = "/proc"): Promise<number | undefined> {
  if (procRoot !== "/proc") return memTotalOf(await readBoundedText(join(procRoot, "meminfo"), "sysfs").catch(() => ""));
  const m = await mem();
  return Number.isFinite(m.total) && m.total > 0 ? m.total : undefined;
}
