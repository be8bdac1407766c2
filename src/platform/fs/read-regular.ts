/**
 * Reads a file that must be a plain file the agent wrote earlier (handoff.json, the
 * token file it names), with a cap. The open never blocks: O_NONBLOCK, so a FIFO put at
 * the path (or named by a document) is opened at once and then refused by its type, as
 * are device nodes, directories and sockets; `readBounded` would wait forever in open(2)
 * for a FIFO's writer.
 */
import { constants, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { TooLargeError } from "./read-bounded.ts";

/** The path is not a regular file; `kind` says what it is ("a FIFO"). */
export class NotRegularFileError extends Error {
  override readonly name = "NotRegularFileError";
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, expected a regular file`);
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isDirectory()) return "a directory";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** The whole regular file at `path`: NotRegularFileError for any other kind, TooLargeError past `cap` bytes; other errors are the fs error. */
export async function readRegularFile(path: string, cap: number): Promise<Uint8Array> {
  const fh = await open(path, FLAGS);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
    // A regular file's size is what it holds (procfs files say 0 but are small and end).
    if (st.size > cap) throw new TooLargeError(path, cap);
    const data = new Uint8Array(await fh.readFile());
    if (data.byteLength > cap) throw new TooLargeError(path, cap);
    return data;
  } finally {
    await fh.close();
  }
}
