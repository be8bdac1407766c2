/**
 * What every command gets from the shell around it: output channels, file reads,
 * the process's secret set and a logger factory. Tests pass their own to capture
 * output; main.ts passes the real process.
 */
import { filesBelow } from "../fs/files-below.ts";
import { READ_CAPS, readBounded } from "../fs/read-bounded.ts";
import { SecretSet } from "../log/redact.ts";
import type { LogFormat, LogLevel, Logger } from "../log/logger.ts";
import { FdOutput, LOG_QUEUE_CAP } from "../log/output.ts";

export interface Io {
  /** Data a command prints (tables, JSON). */
  out(text: string): void;
  /** A line of a live stream (`net watch`): refused (false) while stdout does not keep up, so its queue stays bounded. Default: `out`. */
  outDroppable?(text: string): boolean;
  /** Diagnostics and the final error line: always written. */
  err(text: string): void;
  /** Log lines (default: `err`); may refuse a line (false) when the destination does not keep up. */
  log?(line: string): boolean;
  /** Resolves when everything written reached its destination (bounded; platform/log/output.ts). */
  flush?(): Promise<void>;
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
  /** `sink` also receives every finished (already scrubbed) line: the agent's log shipper (Operations.sink). */
  /** `format` "auto" or absent: METAL_LOG_FORMAT from the environment (commands run by hand), else JSON unless stderr is a terminal. */
  logger(level: LogLevel, format?: LogFormat | "auto", sink?: (line: string) => void): Logger;
}

/**
 * The logger module (and pino with it) is evaluated on the first logger() call, not at
 * start-up: `version`, `config` and help never log, and pino's initialisation is ~20 ms of
 * a CLI call in the debug shell (bench/startup.ts, docs/build.md). Bun's bundler keeps a
 * require()d ES module lazy: it runs when this line runs.
 */
const loadLogger = (): typeof import("../log/logger.ts") => require("../log/logger.ts");

function formatOf(io: Io): LogFormat {
  const env = io.env.METAL_LOG_FORMAT;
  if (env === "json" || env === "text") return env;
  return io.errIsTTY ? "text" : "json";
}

export function createContext(io: Io): Context {
  const secrets = new SecretSet();
  return {
    io,
    secrets,
    logger: (level, format, sink) =>
      loadLogger().createLogger({
        level,
        format: format === "json" || format === "text" ? format : formatOf(io),
        write: (line) => {
          sink?.(line);
          return io.log ? io.log(line) : io.err(line);
        },
        writeAlways: (line) => {
          sink?.(line);
          io.err(line);
        },
        secrets,
        flush: async () => io.flush?.(),
      }),
  };
}

/** The real process: stdout and stderr through FdOutput (nothing lost at exit; log lines bounded). */
export function processIo(): Io {
  const stdout = new FdOutput(1);
  const stderr = new FdOutput(2, LOG_QUEUE_CAP);
  return {
    out: (t) => stdout.write(t),
    outDroppable: (t) => stdout.writeDroppable(t),
    err: (t) => stderr.write(t),
    log: (line) => stderr.writeDroppable(line),
    flush: async () => {
      await Promise.all([stdout.flush(), stderr.flush()]);
    },
    readFile: (p, maxBytes) => readBounded(p, maxBytes ?? READ_CAPS.textFile),
    listFiles: async (p) => filesBelow(p),
    env: process.env,
    errIsTTY: Boolean(process.stderr.isTTY),
  };
}
