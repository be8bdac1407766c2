/** A real logger that keeps its JSON records for assertions. */
import { createLogger, type Logger } from "../../../src/platform/log/logger.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";

export function captureLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: "debug", format: "json", write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>), secrets: new SecretSet() });
  return { log, lines };
}
