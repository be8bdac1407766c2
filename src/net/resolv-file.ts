/**
 * Writes resolv.conf atomically (temp file in the same directory, then rename)
 * and only when the content changes. The path is always passed in; tests point it
 * into a temp directory.
 */
import { renameSync, writeFileSync, rmSync } from "node:fs";
import { readBoundedTextSync } from "../fs/read-bounded.ts";
import { basename, dirname, join } from "node:path";
import { AgentError } from "../errors.ts";

export function writeResolvConf(path: string, text: string): boolean {
  let current: string | undefined;
  try {
    current = readBoundedTextSync(path, "textFile");
  } catch {
    current = undefined;
  }
  if (current === text) return false;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text, { mode: 0o644 });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new AgentError("netlink", `cannot write ${path}: ${(e as Error).message}`, { path });
  }
  return true;
}
