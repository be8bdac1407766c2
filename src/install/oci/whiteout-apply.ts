/**
 * Runs a layer's whiteout plan (whiteout-plan.ts) inside the target: each directory is
 * opened with openat2 RESOLVE_IN_ROOT (platform/fs/root-file.ts dirInRoot), so a symbolic
 * link of the image (`/lib -> usr/lib`, or `/etc -> /`) is followed inside the target and
 * never out of it; the last component is removed without following it (rm's lstat), and
 * the removal recurses only into real directories.
 */
import { closeSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { dirInRoot, RootFileError } from "../../platform/fs/root-file.ts";
import type { WhiteoutPlan } from "./whiteout-plan.ts";

const ENOENT = 2;
const ENOTDIR = 20;

export interface WhiteoutOutcome {
  /** Paths removed (a directory counts once). */
  readonly removed: number;
}

const dirOf = (p: string): string => (p.lastIndexOf("/") < 0 ? "" : p.slice(0, p.lastIndexOf("/")));
const baseOf = (p: string): string => p.slice(p.lastIndexOf("/") + 1);

/** The directory `rel` of the target as an fd, or undefined when it is not there (nothing below to hide). */
function openDir(root: string, rel: string): number | undefined {
  try {
    return dirInRoot(root, `/${rel}`, undefined).fd;
  } catch (e) {
    if (e instanceof RootFileError && (e.errno === ENOENT || e.errno === ENOTDIR)) return undefined;
    throw e;
  }
}

export function applyWhiteouts(root: string, plan: WhiteoutPlan): WhiteoutOutcome {
  let removed = 0;
  const prune = (at: string, rel: string): void => {
    for (const name of readdirSync(at)) {
      const child = rel === "" ? name : `${rel}/${name}`;
      const path = `${at}/${name}`;
      if (!plan.keep.has(child)) {
        rmSync(path, { recursive: true, force: true });
        removed++;
      } else if (lstatSync(path).isDirectory()) prune(path, child);
    }
  };
  for (const a of plan.actions) {
    const dir = a.op === "remove" ? dirOf(a.path) : a.dir;
    const fd = openDir(root, dir);
    if (fd === undefined) continue;
    try {
      const at = `/proc/self/fd/${fd}`;
      if (a.op === "remove") {
        const path = `${at}/${baseOf(a.path)}`;
        let there = true;
        try {
          lstatSync(path);
        } catch {
          there = false;
        }
        if (there) {
          rmSync(path, { recursive: true, force: true });
          removed++;
        }
      } else prune(at, a.dir);
    } finally {
      closeSync(fd);
    }
  }
  return { removed };
}
