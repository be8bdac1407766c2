/**
 * The agent's logger, built for a serial console: JSON lines (default) or, on a TTY,
 * one compact human line per record. This file is the one place a log line is
 * formatted, and every line passes the same three steps once, in this order:
 * secret-named fields are redacted (redact.ts), every string is escaped
 * (escape.ts: no control character from a server reaches the console), and the
 * finished text is scrubbed of every known secret value.
 *
 * Typed: a record cannot be written without an `event` from the vocabulary
 * (events.ts); `log.info({ ifname })` does not compile, `log.info({ event:
 * "net.link.up", ifname })` does. The destination may refuse a line (a bounded queue,
 * log/output.ts): refused lines are counted and reported in one `log.dropped` line
 * when the destination takes lines again. Error and fatal lines (why the agent
 * stopped, why PID 1 reboots) are never refused.
 */
import type { EventName } from "./events.ts";
import { escapeDeep, escapeUntrusted } from "./escape.ts";
import { SecretSet, redactFields } from "./redact.ts";

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal";
export type LogFormat = "json" | "text";

export interface LoggerOptions {
  level: LogLevel | "silent";
  format: LogFormat;
  /** Receives each finished line (with trailing newline); `false` = the line was dropped (queue full). */
  write: (line: string) => unknown;
  /** Receives error and fatal lines, which must never be dropped (default: `write`). */
  writeAlways?: (line: string) => void;
  secrets: SecretSet;
  /** Resolves when what was written reached its destination (the entry point and PID 1 await it). */
  flush?: () => Promise<unknown>;
}

/** What a log call takes: the event and its fields (never a bare message). */
export interface LogFields {
  readonly event: EventName;
  readonly [field: string]: unknown;
}

export type LogMethod = (fields: LogFields, msg?: string) => void;

export interface Logger {
  readonly level: LogLevel | "silent";
  readonly trace: LogMethod;
  readonly debug: LogMethod;
  readonly info: LogMethod;
  readonly warn: LogMethod;
  readonly error: LogMethod;
  readonly fatal: LogMethod;
  isLevelEnabled(level: LogLevel): boolean;
  /** Lines refused by the destination so far. */
  readonly dropped: number;
  /** Waits until the written lines reached the destination; undefined when the destination needs no wait. */
  flush(): Promise<void> | undefined;
}

export const LEVELS: Readonly<Record<LogLevel, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const LEVEL_NAMES: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/** Renders one record as `HH:MM:SS.mmm LEVEL event msg k=v ...`. */
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

/** One record -> one line: redacted, escaped, formatted, scrubbed. */
export function formatRecord(level: LogLevel, fields: LogFields, msg: string | undefined, format: LogFormat, secrets: SecretSet, time = new Date()): string {
  const { event, ...rest } = fields;
  const safe = escapeDeep(redactFields(rest)) as Record<string, unknown>;
  const record: Record<string, unknown> = { level: LEVELS[level], time: time.toISOString(), event };
  // A field named like a record key (level, time, msg) is kept under a prefix instead of replacing it.
  for (const [k, v] of Object.entries(safe)) record[k in record || k === "msg" ? `field.${k}` : k] = v;
  if (msg !== undefined) record.msg = escapeUntrusted(msg);
  const line = format === "json" ? JSON.stringify(record) + "\n" : formatText(record);
  return secrets.scrub(line);
}

export function createLogger(opts: LoggerOptions): Logger {
  const threshold = opts.level === "silent" ? Infinity : LEVELS[opts.level];
  let dropped = 0;
  let reported = 0;
  const always = (line: string): boolean => {
    if (opts.writeAlways) opts.writeAlways(line);
    else opts.write(line);
    return true;
  };
  const emit = (level: LogLevel, fields: LogFields, msg?: string): void => {
    if (LEVELS[level] < threshold) return;
    const put = LEVELS[level] >= LEVELS.error ? always : (line: string) => opts.write(line) !== false;
    if (dropped > reported) {
      const lost = dropped - reported;
      const notice = formatRecord("warn", { event: "log.dropped", dropped: lost, total: dropped }, `${lost} log line(s) dropped: the log destination did not keep up`, opts.format, opts.secrets);
      if (!put(notice)) {
        dropped++;
        return;
      }
      reported = dropped;
    }
    if (!put(formatRecord(level, fields, msg, opts.format, opts.secrets))) dropped++;
  };
  const method =
    (level: LogLevel): LogMethod =>
    (fields, msg) =>
      emit(level, fields, msg);
  return {
    level: opts.level,
    trace: method("trace"),
    debug: method("debug"),
    info: method("info"),
    warn: method("warn"),
    error: method("error"),
    fatal: method("fatal"),
    isLevelEnabled: (level) => LEVELS[level] >= threshold,
    get dropped() {
      return dropped;
    },
    flush: () => (opts.flush ? opts.flush().then(() => undefined) : undefined),
  };
}

/** Logs one vocabulary event: `logEvent(log, "net.link.up", { ifname })`. */
export function logEvent(log: Logger, event: EventName, fields: Record<string, unknown> = {}, msg?: string, level: LogLevel = "info"): void {
  log[level]({ ...fields, event }, msg);
}

/** A logger that drops everything (for pure code under test that wants one). */
export function silentLogger(): Logger {
  return createLogger({ level: "silent", format: "json", write: () => {}, secrets: new SecretSet() });
}
