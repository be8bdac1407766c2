/**
 * Files only root may read (the token, the hand-off document): mode 0600 from the
 * first byte, written atomically so a reader never sees half a file. The temp file is
 * created with O_CREAT|O_EXCL|O_NOFOLLOW under a random name: a link or FIFO planted at
 * a predictable name (as PID 1 the pid is always 1) is never opened.
 */
import { constants } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";
import { AgentError } from "../errors.ts";

/** The temp file's open flags: create, never an existing file, never through a link. */
export const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Writes `content` to `path` with mode 0600, atomically (temp file in the same directory, then rename). */
export async function writePrivateFile(path: string, content: string, what: string): Promise<void> {
  const dir = dirname(path);
  const tmp = `${path}.tmp-${randomBytes(8).toString("hex")}`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const fh = await open(tmp, TEMP_FLAGS, 0o600);
    try {
      await fh.chmod(0o600);
      await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // rename replaces a link or FIFO at `path` itself, and the file is 0600 already (fh.chmod).
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    throw new AgentError("handoff", `cannot write the ${what} ${path}: ${(e as Error).message}`, { path });
  }
}
