/**
 * Writes the installer contract files (contract.ts) into the target root: each 0600
 * from the first byte, atomically; /etc/metal is created 0755 when the image has none.
 * Every path is resolved inside the target (src/fs/root-file.ts: openat2 RESOLVE_IN_ROOT,
 * temp files O_EXCL with a random name, renamed over the name): an `etc` or `etc/metal`
 * link in the image is followed as the installed system would see it, never onto the
 * running system; a link, FIFO or device node at a file's name is replaced, not written
 * through. Only paths are logged.
 */
import { AgentError } from "../errors.ts";
import { writeInRoot } from "../fs/root-file.ts";
import { logEvent, type Logger } from "../log/logger.ts";
import type { ContractFiles } from "./contract.ts";

export async function writeContract(root: string, contract: ContractFiles, log: Logger): Promise<string[]> {
  const written: string[] = [];
  for (const f of contract.files) {
    try {
      writeInRoot(root, f.path, f.content, 0o600, 0o755);
    } catch (e) {
      throw new AgentError("installer", `installer contract: cannot write ${f.path}: ${(e as Error).message}`, { path: f.path });
    }
    written.push(f.path);
  }
  logEvent(log, "install.config", { root, files: written }, `installer contract written into ${root}: ${written.join(", ")} (0600)`);
  return written;
}
