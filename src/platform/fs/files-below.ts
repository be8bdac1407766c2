/**
 * The files below a directory, recursively (regular files and symbolic links), as paths
 * relative to it, sorted; undefined when the path is not a directory. Used for module
 * trees: `kconfig check --modules DIR` and PID 1's check of the running kernel.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export function filesBelow(dir: string): string[] | undefined {
  if (!(statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false)) return undefined;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}
