import { AgentError } from "../platform/errors.ts";
import { READ_CAPS } from "../platform/fs/read-bounded.ts";
import { decodeCmdlineBytes } from "../config/cmdline.ts";
import { configFromCmdline, type Config } from "../config/config.ts";
import type { Io } from "../platform/io/context.ts";

export interface CmdlineSource {
  cmdline?: string;
  file?: string;
}

export const PROC_CMDLINE = "/proc/cmdline";

/** Reads the cmdline text from --cmdline, --file, or /proc/cmdline, in that order. */
export async function readCmdlineText(io: Io, src: CmdlineSource): Promise<string> {
  if (src.cmdline !== undefined) return src.cmdline;
  const path = src.file ?? PROC_CMDLINE;
  try {
    return decodeCmdlineBytes(await io.readFile(path, READ_CAPS.cmdline));
  } catch (e) {
    throw new AgentError("usage", `cannot read the kernel cmdline from ${path}: ${(e as Error).message}`, { path });
  }
}

export async function loadConfig(io: Io, src: CmdlineSource): Promise<Config> {
  return configFromCmdline(await readCmdlineText(io, src));
}
