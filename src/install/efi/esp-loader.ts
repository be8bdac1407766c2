/**
 * Whether a boot entry's file path names a loader that is on the mounted ESP. The
 * firmware's FAT driver compares names without case (UEFI 2.10 §13.3.1.1), so the path
 * is looked up one component at a time, case-insensitively, whatever the filesystem
 * the directory is on (tests run on tmpfs). Only a path as efibootmgr stores one counts
 * (`\EFI\BOOT\BOOTX64.EFI`: a leading `\`, no empty, `.` or `..` component, no `/`):
 * whether a firmware reads anything else differs between firmwares. The loader must be
 * a regular file with some bytes.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** The components of a loader path, or undefined when it is not one (see above). Pure. */
export function loaderComponents(path: string): string[] | undefined {
  if (!path.startsWith("\\") || path.includes("/")) return undefined;
  const parts = path.slice(1).split("\\");
  return parts.every((p) => p !== "" && p !== "." && p !== "..") ? parts : undefined;
}

/** The key a loader path is known by: FAT's case-insensitive name. Pure. */
export const loaderKey = (path: string): string => path.toUpperCase();

/** The path on the host of `path` below `espDir` (case-insensitive per component), or undefined when it is not there. */
export async function findLoader(espDir: string, path: string): Promise<string | undefined> {
  const parts = loaderComponents(path);
  if (!parts) return undefined;
  let dir = espDir;
  for (const part of parts) {
    const names = await readdir(dir).catch(() => [] as string[]);
    const name = names.sort().find((n) => n.toUpperCase() === part.toUpperCase());
    if (name === undefined) return undefined;
    dir = join(dir, name);
  }
  const st = await stat(dir).catch(() => undefined);
  return st?.isFile() && st.size > 0 ? dir : undefined;
}
