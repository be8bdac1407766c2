/**
 * Writes the installer contract files (contract.ts) into the target root: each 0600
 * from the first byte, atomically; /etc/metal is created 0755 when the image has none, a
 * file marked onlyIfDirExists (lvmlocal.conf) is skipped when the image lacks its folder.
 * A /etc/metal that resolves outside the target (a symlink in the image) is refused,
 * so nothing is written onto the running system. Only paths are logged.
 */
import { mkdir, realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AgentError } from "../errors.ts";
import { writePrivateFile } from "../fs/private-file.ts";
import { logEvent, type Logger } from "../log/logger.ts";
import type { ContractFiles } from "./contract.ts";

export async function insideRoot(root: string, path: string): Promise<string> {
  const realRoot = await realpath(root);
  const real = await realpath(path);
  if (real !== realRoot && !real.startsWith(realRoot.endsWith("/") ? realRoot : `${realRoot}/`)) {
    throw new AgentError("installer", `installer contract: ${path} resolves to ${real}, outside the target root ${realRoot}`, { path, real });
  }
  return real;
}

export async function writeContract(root: string, contract: ContractFiles, log: Logger): Promise<string[]> {
  const written: string[] = [];
  const skipped: string[] = [];
  for (const f of contract.files) {
    const dir = join(root, dirname(f.path));
    if (f.onlyIfDirExists && !(await isDir(dir))) {
      skipped.push(f.path);
      continue;
    }
    try {
      await mkdir(dir, { recursive: true, mode: 0o755 });
    } catch (e) {
      throw new AgentError("installer", `installer contract: cannot create ${dir}: ${(e as Error).message}`, { path: dir });
    }
    const realDir = await insideRoot(root, dir);
    const target = join(realDir, f.path.slice(dirname(f.path).length + 1));
    try {
      await writePrivateFile(target, f.content, "installer contract file");
    } catch (e) {
      throw new AgentError("installer", (e as Error).message, { path: target });
    }
    written.push(f.path);
  }
  const note = skipped.length > 0 ? `; not written (the image has no ${skipped.map(dirname).join(", ")}): ${skipped.join(", ")}` : "";
  logEvent(log, "install.config", { root, files: written, skipped }, `installer contract written into ${root}: ${written.join(", ")} (0600)${note}`);
  return written;
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}
