/**
 * The compact text form of a log record (a TTY's console): `HH:MM:SS.mmm LEVEL event msg
 * k=v ...`. Pure and without pino, so bench/logger.ts can use it without loading pino.
 */
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

/** pino's level numbers. */
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
