/** An in-memory Io for running CLI commands in-process and reading what they printed. */
import { createContext, type Context, type Io } from "../../src/platform/io/context.ts";

export interface Captured {
  ctx: Context;
  out: () => string;
  err: () => string;
}

export function captureContext(files: Record<string, string | Uint8Array> = {}, env: Record<string, string> = {}): Captured {
  let out = "";
  let err = "";
  const io: Io = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    readFile: async (p) => {
      const f = files[p];
      if (f === undefined) throw new Error(`ENOENT: no such file or directory, open '${p}'`);
      return typeof f === "string" ? new TextEncoder().encode(f) : f;
    },
    // A directory is any path that is a prefix of file paths in `files`.
    listFiles: async (dir) => {
      const prefix = dir.endsWith("/") ? dir : dir + "/";
      const below = Object.keys(files)
        .filter((p) => p.startsWith(prefix))
        .map((p) => p.slice(prefix.length));
      return below.length > 0 ? below : undefined;
    },
    env,
    errIsTTY: false,
  };
  return { ctx: createContext(io), out: () => out, err: () => err };
}
