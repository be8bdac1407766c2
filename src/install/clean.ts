/**
 * Empties the target root before an image is fetched again from scratch (a checksum
 * mismatch, or a server that cannot resume): everything below the root goes, except
 * mount points inside it (/boot/efi, /var, ... of the filesystem layout) and the
 * directories leading to them, which are emptied but kept. lost+found stays at the top of
 * each filesystem (mkfs made it: the target's and each mount point's), nowhere else.
 * The files the layout wrote before the image (KEEP_FILES: /etc/metal/disk.json) stay,
 * with the directories leading to them; a kept name the first pass turned into a link
 * or another kind of file is removed, never followed.
 */
import { readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** Mount points below `root` from /proc/self/mountinfo text (field 5, octal escapes decoded). Pure. */
export function mountsBelow(mountinfo: string, root: string): string[] {
  const base = root.replace(/\/+$/, "");
  const out: string[] = [];
  for (const line of mountinfo.split("\n")) {
    const f = line.split(" ");
    const mp = f[4];
    if (mp === undefined) continue;
    const path = mp.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (path.startsWith(base + "/")) out.push(path);
  }
  return out;
}

/** The directories to keep (mount points and their ancestors below root). Pure. */
export function keepSet(root: string, mounts: readonly string[]): Set<string> {
  const base = root.replace(/\/+$/, "");
  const keep = new Set<string>();
  for (const m of mounts) {
    let p = m;
    while (p.length > base.length) {
      keep.add(p);
      p = p.slice(0, p.lastIndexOf("/"));
    }
  }
  return keep;
}

/** Files the disks stage wrote into the target before the image: they survive a new download pass. */
export const KEEP_FILES = ["/etc/metal/disk.json"] as const;

/** Empties `dir`; `fsRoot`: it is the top of a filesystem (the target or a mount point), whose lost+found mkfs made. */
async function empty(dir: string, keep: Set<string>, files: Set<string>, mounts: Set<string>, fsRoot: boolean): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (fsRoot && e.name === "lost+found") continue;
    // Dirent types are lstat's: a link is never a directory or a file here.
    if (files.has(p) && e.isFile()) continue;
    if (keep.has(p) && (e.isDirectory() || mounts.has(p))) await empty(p, keep, files, mounts, mounts.has(p));
    else await rm(p, { recursive: true, force: true });
  }
}

export async function cleanTarget(root: string, readMountinfo: () => Promise<string> = () => readFile("/proc/self/mountinfo", "utf8")): Promise<void> {
  const base = root.replace(/\/+$/, "");
  if (base === "" || !base.startsWith("/")) throw new Error(`refusing to clean ${JSON.stringify(root)}: expected an absolute path below /`);
  const mounts = mountsBelow(await readMountinfo(), base);
  const files = KEEP_FILES.map((f) => `${base}${f}`);
  const keep = keepSet(base, [...mounts, ...files.map((f) => f.slice(0, f.lastIndexOf("/")))]);
  await empty(base, keep, new Set(files), new Set(mounts), true);
}
