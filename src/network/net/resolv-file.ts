/**
 * Writes resolv.conf, only when the content changes, and never loses what an
 * operator set up:
 *   - a regular file: atomically (temp file in the same directory, then rename);
 *   - a mount point (bind-mounted by a container runtime or `ip netns exec`), where
 *     rename fails with EBUSY or EXDEV: written in place;
 *   - a symlink (systemd-resolved, resolvconf): another resolver owns the file, so it
 *     is left alone and the outcome says so, naming the target.
 * Never throws: the caller decides whether a failure matters (--need-dns).
 */
import { readBoundedTextSync } from "../../platform/fs/read-bounded.ts";
import { lstatSync, readlinkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export type WriteOutcome = { readonly ok: true; readonly how: "unchanged" | "replaced" | "in-place" } | { readonly ok: false; readonly reason: string };

const code = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

export function writeResolvConf(path: string, text: string): WriteOutcome {
  try {
    if (lstatSync(path).isSymbolicLink()) {
      const target = readlinkSync(path);
      return { ok: false, reason: `${path} is a symlink to ${target} (another resolver manages it): left alone; --resolv-conf ${target} writes there` };
    }
  } catch {
    /* absent: created below */
  }
  let current: string | undefined;
  try {
    current = readBoundedTextSync(path, "textFile");
  } catch {
    current = undefined;
  }
  if (current === text) return { ok: true, how: "unchanged" };
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let first: string;
  try {
    writeFileSync(tmp, text, { mode: 0o644 });
    renameSync(tmp, path);
    return { ok: true, how: "replaced" };
  } catch (e) {
    rmSync(tmp, { force: true });
    first = code(e);
  }
  // EBUSY/EXDEV: a mount point; EACCES/EROFS on the directory: the file itself may still be writable.
  if (current === undefined && first !== "EBUSY" && first !== "EXDEV") return { ok: false, reason: `cannot write ${path}: ${first}` };
  try {
    writeFileSync(path, text);
    return { ok: true, how: "in-place" };
  } catch (e) {
    return { ok: false, reason: `cannot write ${path}: ${first}, in place: ${code(e)}` };
  }
}
