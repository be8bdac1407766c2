/** A real logger (redaction included) whose JSON lines are kept for assertions. */
import { createLogger, type Logger } from "../../src/platform/log/logger.ts";
import { SecretSet } from "../../src/platform/log/redact.ts";

export interface CapturedLog {
  readonly log: Logger;
  readonly secrets: SecretSet;
  /** Every line as written (scrubbed). */
  readonly lines: string[];
  /** The parsed records with this event. */
  events(name: string): Record<string, unknown>[];
}

export function capturingLogger(secrets = new SecretSet(), also?: (line: string) => void): CapturedLog {
  const lines: string[] = [];
  const log = createLogger({ level: "debug", format: "json", secrets, write: (l) => (lines.push(l), also?.(l)) });
  return {
    log,
    secrets,
    lines,
    events: (name) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.event === name),
  };
}
