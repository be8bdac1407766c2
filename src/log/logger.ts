/**
 * pino, configured for a serial console: JSON lines (default) or, on a TTY, one
 * compact human line per record. Every record passes field redaction, then the
 * final text passes the SecretSet scrub, so no secret can reach the output through
 * a message, an error, a nested object or a header.
 */
import pino from "pino";
import type { EventName } from "./events.ts";
import { SecretSet, redactFields } from "./redact.ts";

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal";
export type LogFormat = "json" | "text";

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** Receives each finished line (with trailing newline). */
  write: (line: string) => void;
  secrets: SecretSet;
}

export type Logger = pino.Logger;

const LEVEL_NAMES: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/** Renders one JSON record as `HH:MM:SS.mmm LEVEL event msg k=v ...`. */
export function formatText(record: Record<string, unknown>): string {
  const { time, level, event, msg, ...rest } = record;
  const t = typeof time === "string" ? time.slice(11, 23) : "";
  const parts = [t, (LEVEL_NAMES[Number(level)] ?? String(level)).padEnd(5)];
  if (event) parts.push(String(event));
  if (msg) parts.push(String(msg));
  for (const [k, v] of Object.entries(rest)) {
    const s = typeof v === "string" ? (/[\s"=]/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v);
    parts.push(`${k}=${s}`);
  }
  return parts.join(" ") + "\n";
}

export function createLogger(opts: LoggerOptions): Logger {
  const { secrets } = opts;
  const stream = {
    write(chunk: string): void {
      const clean = secrets.scrub(chunk);
      if (opts.format === "json") return opts.write(clean);
      try {
        opts.write(formatText(JSON.parse(clean) as Record<string, unknown>));
      } catch {
        opts.write(clean);
      }
    },
  };
  return pino(
    {
      level: opts.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (_label, number) => ({ level: number }),
        log: (obj) => redactFields(obj) as Record<string, unknown>,
      },
      serializers: { err: (e: unknown) => redactFields(e) },
    },
    stream,
  );
}

/** Logs one vocabulary event: `logEvent(log, "net.link.up", { ifname })`. */
export function logEvent(
  log: Logger,
  event: EventName,
  fields: Record<string, unknown> = {},
  msg?: string,
  level: "trace" | "debug" | "info" | "warn" | "error" | "fatal" = "info",
): void {
  if (msg === undefined) log[level]({ event, ...fields });
  else log[level]({ event, ...fields }, msg);
}

/** A logger that drops everything (for pure code under test that wants one). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
