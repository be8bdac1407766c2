/**
 * JSON answer -> validated value, or a bad_answer error naming the field and what was
 * expected. `onRaw` sees the parsed JSON before validation (to register secrets at
 * once). The body text itself never goes into an error: it may hold a secret.
 */
import type { z } from "zod";
import { BadAnswerError } from "./bad-answer.ts";

export function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(whole answer)";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

export function validateAnswer<S extends z.ZodType>(raw: unknown, schema: S, what: string): z.output<S> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = fieldPath(issue?.path ?? []);
  const problem = issue?.message ?? "invalid";
  throw new BadAnswerError(`${what}: field ${field}: ${problem}`, true, {
    field,
    issues: r.error.issues.map((i) => ({ field: fieldPath(i.path), message: i.message })),
  });
}

export function parseAnswer<S extends z.ZodType>(body: Uint8Array, schema: S, what: string, onRaw?: (raw: unknown) => void): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(body));
  } catch (e) {
    // The parser message can quote the body, which may hold a secret: only the size is shown.
    throw new BadAnswerError(`${what}: not valid JSON (${body.byteLength} bytes)`, true, {}, { cause: e });
  }
  onRaw?.(raw);
  return validateAnswer(raw, schema, what);
}
