/**
 * Files only root may read (the token, the hand-off document): mode 0600 from the
 * first byte, written atomically so a reader never sees half a file.
 */
import { chmod, mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { AgentError } from "../errors.ts";

/** Writes `content` to `path` with mode 0600, atomically (temp file in the same directory, then rename). */
export async function writePrivateFile(path: string, content: string, what: string): Promise<void> {
  const dir = dirname(path);
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const fh = await open(tmp, "w", 0o600);
    try {
      await fh.chmod(0o600);
      await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    await chmod(path, 0o600);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    throw new AgentError("handoff", `cannot write the ${what} ${path}: ${(e as Error).message}`, { path });
  }
}
