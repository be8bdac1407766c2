/**
 * boot.ipxe as metal-boot serves it for one partition (pure): kernel with the
 * partition's cmdline, the partition's initrd, boot. A machine whose source prefix is
 * no partition's gets a refusal (the ISO's chain script then retries, bounded).
 */
import { cmdlineFor, extraInitrdPath, initrdPath, kernelPath, type Partition } from "./partitions.ts";

export function renderBootScript(p: Partition, publicUrl: string, source: string): string {
  const base = publicUrl.replace(/\/+$/, "");
  return [
    "#!ipxe",
    `# metal-boot (lab stand-in, boot side): partition ${p.name} for ${source}`,
    `echo metal-boot: partition ${p.name}, metal-hammer initrd ${p.initrdVersion}`,
    `kernel ${base}${kernelPath(p)} ${cmdlineFor(p)}`,
    `initrd ${base}${initrdPath(p)}`,
    ...p.extraInitrds.map((x) => `initrd ${base}${extraInitrdPath(p, x.name)}`),
    "boot",
    "",
  ].join("\n");
}
