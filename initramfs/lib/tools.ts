/**
 * `--tools FILE`: host binaries to put into the initramfs at their own paths (disk
 * tools: sgdisk, mdadm, lvm, mkfs.*), one absolute path per line, `#` comments. The
 * builder adds each with the libraries its ELF headers need (ldd.ts, elf.ts). Pure.
 */
export class ToolListError extends Error {
  override readonly name = "ToolListError";
}

export function parseToolList(text: string, source: string): string[] {
  const out: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") return;
    if (!/^\/[A-Za-z0-9._+\/-]+$/.test(line) || line.split("/").includes("..")) {
      throw new ToolListError(`${source}:${i + 1}: ${JSON.stringify(line.slice(0, 80))}: expected an absolute host path like /usr/sbin/sgdisk`);
    }
    if (!out.includes(line)) out.push(line);
  });
  return out;
}
