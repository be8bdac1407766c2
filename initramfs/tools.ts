/**
 * The tools list (initramfs/tools.list) -> image items: each listed host file with the
 * shared libraries ldd reports for it (deduplicated against what the image already
 * has), symlinks kept as symlinks. Used by build.ts (--tools).
 */
import { lstatSync, readlinkSync, readFileSync, statSync } from "node:fs";
import type { ImageItem } from "../src/initramfs/layout.ts";
import { parseLdd } from "../src/initramfs/ldd.ts";

/** Host paths, one a line; `#` comments and blank lines skipped. Pure. */
export function parseToolsList(text: string): string[] {
  const out: string[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    if (!/^\/[^\s]+$/.test(line)) throw new Error(`tools list line ${i + 1}: ${JSON.stringify(line)}: expected an absolute host path`);
    out.push(line);
  }
  return out;
}

const isElf = (p: string): boolean => {
  const b = readFileSync(p).subarray(0, 4);
  return b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46;
};

/** Image items for the listed tools; `taken` holds the image paths already present (no leading slash). */
export function toolItems(paths: readonly string[], taken: ReadonlySet<string>, ldd: (path: string) => string): ImageItem[] {
  const items: ImageItem[] = [];
  const have = new Set(taken);
  const add = (it: ImageItem): void => {
    const p = it.path.replace(/^\/+/, "");
    if (have.has(p)) return;
    have.add(p);
    items.push({ ...it, path: p });
  };
  for (const p of paths) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) throw new Error(`tools list: ${p} does not exist on the build host (install its Debian package: make deps)`);
    if (st.isSymbolicLink()) {
      add({ kind: "symlink", path: p, target: readlinkSync(p), group: "tools" });
      continue;
    }
    add({ kind: "file", path: p, mode: st.mode & 0o777, size: st.size, source: { kind: "host", path: p }, group: "tools" });
    if (!isElf(p)) continue;
    for (const lib of parseLdd(ldd(p))) add({ kind: "file", path: lib.path, mode: 0o755, size: statSync(lib.path).size, source: { kind: "host", path: lib.path }, group: "tools" });
  }
  return items;
}
