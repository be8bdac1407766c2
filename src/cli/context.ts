/**
 * What every command gets from the shell around it: output channels, file reads,
 * the process's secret set and a logger factory. Tests pass their own to capture
 * output; main.ts passes the real process.
 */
import { readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { READ_CAPS, readBounded } from "../fs/read-bounded.ts";
import { SecretSet } from "../log/redact.ts";
import { createLogger, type LogFormat, type LogLevel, type Logger } from "../log/logger.ts";

export interface Io {
  /** Data a command prints (tables, JSON). */
  out(text: string): void;
  /** Diagnostics and, by default, log lines. */
  err(text: string): void;
  /** A whole file, at most `maxBytes` (default READ_CAPS.textFile): more is a TooLargeError naming the file and the cap. */
  readFile(path: string, maxBytes?: number): Promise<Uint8Array>;
  /**
   * The files below a directory (recursively, paths relative to it), or undefined when
   * `path` is not a directory. Optional: commands that take directories check for it.
   */
  listFiles?(path: string): Promise<string[] | undefined>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether the log destination is a terminal (chooses the text log format). */
  readonly errIsTTY: boolean;
}

export interface Context {
  readonly io: Io;
  readonly secrets: SecretSet;
  logger(level: LogLevel, format?: LogFormat): Logger;
}

export function createContext(io: Io): Context {
  const secrets = new SecretSet();
  return {
    io,
    secrets,
    logger: (level, format) =>
      createLogger({
        level,
        format: format ?? (io.env.METAL_LOG_FORMAT === "json" || !io.errIsTTY ? "json" : "text"),
        write: (line) => io.err(line),
        secrets,
      }),
  };
}

export function processIo(): Io {
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    readFile: (p, maxBytes) => readBounded(p, maxBytes ?? READ_CAPS.textFile),
    listFiles: async (p) => {
      const st = await stat(p).catch(() => undefined);
      if (!st?.isDirectory()) return undefined;
      const entries = await readdir(p, { recursive: true, withFileTypes: true });
      return entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => relative(p, join(e.parentPath, e.name)));
    },
    env: process.env,
    errIsTTY: Boolean(process.stderr.isTTY),
  };
}
