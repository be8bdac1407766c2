/**
 * The agent's logger, built for a serial console: JSON lines (default) or, on a TTY,
 * one compact human line per record. pino writes the records; this file configures it
 * and is the one place a log line is formatted. Every line passes the same three steps
 * once, in this order: secret-named fields are redacted (redact.ts) and every string is
 * escaped (escape.ts: no control character from a server reaches the console), both in
 * pino's `formatters.log`, the message in the typed wrapper; then the finished text is
 * scrubbed of every known secret value in the destination.
 *
 * Typed: a record cannot be written without an `event` from the vocabulary
 * (events.ts); `log.info({ ifname })` does not compile, `log.info({ event:
 * "net.link.up", ifname })` does. The destination may refuse a line (a bounded queue,
 * platform/log/output.ts): refused lines are counted and reported in one `log.dropped` line
 * when the destination takes lines again. Error and fatal lines (why the agent
 * stopped, why PID 1 reboots) are never refused.
 *
 * pino writes synchronously into `Destination` below, a plain object with `write`: no
 * transport, no worker thread, no sonic-boom, so nothing extra runs inside the
 * compiled binary or as PID 1. Cost against the hand-written formatter this replaced:
 * bench/logger.ts, figures in docs/bench.md.
 */
import pino from "pino";
import type { EventName } from "./events.ts";
import { escapeDeep, escapeUntrusted } from "./escape.ts";
import { SecretSet, redactFields } from "./redact.ts";
import { formatText, LEVELS, type LogLevel } from "./text-format.ts";

export { formatText, LEVELS, type LogLevel };

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

/** The fields of one record as it is written: event first, then the caller's fields, redacted and escaped. */
function recordFields(fields: LogFields): Record<string, unknown> {
  const { event, ...rest } = fields;
  const safe = escapeDeep(redactFields(rest)) as Record<string, unknown>;
  const record: Record<string, unknown> = { event };
  // A field named like a record key (level, time, msg) is kept under a prefix instead of replacing it.
  for (const [k, v] of Object.entries(safe)) record[k === "level" || k === "time" || k === "msg" || k in record ? `field.${k}` : k] = v;
  return record;
}

/**
 * The fields of one call travel to pino inside this wrapper, so pino's own reading of
 * the object it is given does not apply to them: an `err` field would otherwise
 * become the message (unescaped), a `msg` field the message, and `method` + `headers`
 * + `socket` would be taken for an HTTP request. `formatters.log` unwraps it.
 */
const FIELDS = Symbol("metal-hammer.log.fields");
type Wrapped = { readonly [FIELDS]: LogFields };

/** The level of a line pino wrote: `formatters.level` puts it first, `{"level":30,...`. */
const LEVEL_PREFIX = '{"level":';
function levelOf(chunk: string): number {
  return chunk.startsWith(LEVEL_PREFIX) ? Number.parseInt(chunk.slice(LEVEL_PREFIX.length, LEVEL_PREFIX.length + 3), 10) : LEVELS.fatal;
}

/**
 * pino's destination: every line pino writes is formatted for the console (text on a
 * TTY), scrubbed of known secrets, and handed to the bounded output. Lines below error
 * may be refused (counted); before the next line that gets through, one `log.dropped`
 * line says how many were lost. Error and fatal lines go to `writeAlways`.
 */
class Destination {
  dropped = 0;
  #reported = 0;
  #opts: LoggerOptions;
  /** Renders a `log.dropped` record through the same pino instance (set once it exists). */
  notice: (lost: number, total: number) => void = () => {};
  /** While `notice` runs: the line it rendered, kept instead of written. */
  #capture: { line?: string } | undefined;

  constructor(opts: LoggerOptions) {
    this.#opts = opts;
  }

  write(chunk: string): void {
    const line = this.#opts.secrets.scrub(this.#opts.format === "json" ? chunk : formatText(JSON.parse(chunk) as Record<string, unknown>));
    if (this.#capture) {
      this.#capture.line = line;
      return;
    }
    const always = levelOf(chunk) >= LEVELS.error;
    if (this.dropped > this.#reported) {
      const notice = this.#render(this.dropped - this.#reported, this.dropped);
      if (notice !== undefined) {
        if (!this.#put(notice, always)) {
          this.dropped++;
          return;
        }
        this.#reported = this.dropped;
      }
    }
    if (!this.#put(line, always)) this.dropped++;
  }

  #render(lost: number, total: number): string | undefined {
    const capture: { line?: string } = {};
    this.#capture = capture;
    try {
      this.notice(lost, total);
    } finally {
      this.#capture = undefined;
    }
    return capture.line;
  }

  #put(line: string, always: boolean): boolean {
    if (!always) return this.#opts.write(line) !== false;
    (this.#opts.writeAlways ?? this.#opts.write)(line);
    return true;
  }
}

export function createLogger(opts: LoggerOptions): Logger {
  const destination = new Destination(opts);
  const p = pino(
    {
      level: opts.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (_label, number) => ({ level: number }),
        log: (o) => recordFields((o as Partial<Wrapped>)[FIELDS] ?? (o as unknown as LogFields)),
      },
      // Errors are plain objects by now (redactFields); pino's err serializer would retype them "Object".
      serializers: { err: (v: unknown) => v },
    },
    destination,
  );
  destination.notice = (lost, total) =>
    p.warn({ [FIELDS]: { event: "log.dropped", dropped: lost, total } } satisfies Wrapped, `${lost} log line(s) dropped: the log destination did not keep up`);
  const method =
    (level: LogLevel): LogMethod =>
    (fields, msg) => {
      const wrapped: Wrapped = { [FIELDS]: fields };
      if (msg === undefined) p[level](wrapped);
      else p[level](wrapped, escapeUntrusted(msg));
    };
  return {
    level: opts.level,
    trace: method("trace"),
    debug: method("debug"),
    info: method("info"),
    warn: method("warn"),
    error: method("error"),
    fatal: method("fatal"),
    isLevelEnabled: (level) => p.isLevelEnabled(level),
    get dropped() {
      return destination.dropped;
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
