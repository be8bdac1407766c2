/** A JSON logger that keeps its records in memory (level at debug), for asserting log lines. */
import { createLogger, type Logger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

export function memoryLog(): { log: Logger; records: () => Record<string, unknown>[]; text: () => string } {
  const lines: string[] = [];
  const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(l), secrets: new SecretSet() });
  return { log, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>), text: () => lines.join("") };
}
