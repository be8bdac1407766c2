/**
 * Writes the installer contract files (contract.ts) into the target root: each 0600
 * from the first byte, atomically; /etc/metal is created 0755 when the image has none.
 * Every path is resolved inside the target (src/platform/fs/root-file.ts: openat2 RESOLVE_IN_ROOT,
 * temp files O_EXCL with a random name, renamed over the name): an `etc` or `etc/metal`
 * link in the image is followed as the installed system would see it, never onto the
 * running system; a link, FIFO or device node at a file's name is replaced, not written
 * through. A file marked onlyIfDirExists (lvmlocal.conf) is skipped when the image lacks
 * its folder (looked up inside the target too). Only paths are logged.
 */
import { closeSync } from "node:fs";
import { dirname } from "node:path";
import { AgentError } from "../platform/errors.ts";
import { dirInRoot, writeInRoot } from "../platform/fs/root-file.ts";
import { logEvent, type Logger } from "../platform/log/logger.ts";
import type { ContractFiles } from "./contract.ts";

export async function writeContract(root: string, contract: ContractFiles, log: Logger): Promise<string[]> {
  const written: string[] = [];
  const skipped: string[] = [];
  for (const f of contract.files) {
    if (f.onlyIfDirExists && !isDirInRoot(root, dirname(f.path))) {
      skipped.push(f.path);
      continue;
    }
    try {
      writeInRoot(root, f.path, f.content, 0o600, 0o755);
    } catch (e) {
      throw new AgentError("installer", `installer contract: cannot write ${f.path}: ${(e as Error).message}`, { path: f.path });
    }
    written.push(f.path);
  }
  const note = skipped.length > 0 ? `; not written (the image has no ${skipped.map(dirname).join(", ")}): ${skipped.join(", ")}` : "";
  logEvent(log, "install.config", { root, files: written, skipped }, `installer contract written into ${root}: ${written.join(", ")} (0600)${note}`);
  return written;
}

/** Whether `path` is a directory of the target (resolved inside it; a link out or a missing one is not). */
function isDirInRoot(root: string, path: string): boolean {
  try {
    closeSync(dirInRoot(root, path, undefined).fd);
    return true;
  } catch {
    return false;
  }
}
