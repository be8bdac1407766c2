/**
 * An AgentError's `details` is log context only: the facts code branches on are typed
 * fields (AgentError.code and .retryable; ConnectError.connectCode, BadAnswerError.violation,
 * TransportError.errorCode, WipeFailedError.report). This test fails when a file of src/
 * reads a member of `details` (`e.details.x`, `e.details?.x`, `details["x"]`,
 * `"x" in e.details`, destructuring or aliasing `e.details`), outside the files
 * allowed to format it for a log line. Spreading it into another error or a log line
 * (`{ ...err.details }`) passes it on unread and is fine.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

/** Paths under src/ (a file, or a folder ending in "/") that may read details: the logger formats the fields it is given. */
const ALLOWED: readonly string[] = ["platform/log/"];

const READS: readonly RegExp[] = [
  // e.details.x, e.details?.x, details.x, details?.x, e.details[...], e.details?.[...] ("machine-details.yaml" is no read)
  /(?<![\w$-])details\s*\??\.\s*[A-Za-z_$[]/,
  /(?<![\w$-])details\s*\[/,
  // "x" in e.details
  /\bin\s+[\w$.?!()]*\.details\b/,
  // const { x } = e.details; const d = e.details;
  /\}\s*=\s*[\w$.?!()]*\.details\b/,
  /\b(?:const|let|var)\s+[\w$]+(?:\s*:[^=]+)?\s*=[^;=\n]*\.details\s*(?:;|$)/,
];

/** The lines of `text` that read details, as "line: text". */
export function detailReads(text: string): string[] {
  return text.split("\n").flatMap((line, i) => (READS.some((re) => re.test(line)) ? [`${i + 1}: ${line.trim()}`] : []));
}

/** The .ts files of src/, relative to it. */
const sources = (): string[] => readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));

const allowed = (rel: string) => ALLOWED.some((a) => (a.endsWith("/") ? rel.startsWith(a) : rel === a));

describe("AgentError details decide nothing", () => {
  test("the pattern finds every form of reading details and passes spreading it on", () => {
    const reads = [
      "if (e.details.violation !== true) return;",
      "return RECONNECT.has(String(err.details.connectCode ?? ''));",
      "const r = e instanceof AgentError ? e.details.report : undefined;",
      "for (const v of [o.code, o.details?.errorCode]) out.push(v);",
      "const c = e.details['connectCode'];",
      "const c = e.details?.['connectCode'];",
      "if ('retryable' in e.details) retry();",
      "const { connectCode } = err.details;",
      "const d = err.details;",
      "const d: Record<string, unknown> = (e as AgentError).details;",
      "if (details.violation) return;",
    ];
    expect(reads.filter((l) => detailReads(l).length === 0)).toEqual([]);
    const fine = [
      "throw new AgentError(err.code, msg, { ...err.details, uuid }, { cause: e });",
      'logEvent(log, "agent.fatal", { code: err.code, exitCode: err.exitCode, ...err.details }, err.message, "fatal");',
      'export const MACHINE_DETAILS_PATH = "/etc/metal/machine-details.yaml";',
      "readonly details: Readonly<Record<string, unknown>>;",
      "this.details = details;",
      "return { message, details };",
      "/** Wipes all disks; the report is in details. */",
      "if (e instanceof ConnectError && e.connectCode === 'unavailable') retry();",
    ];
    expect(fine.flatMap(detailReads)).toEqual([]);
  });

  test("every allowed path exists", () => {
    expect(ALLOWED.filter((a) => !existsSync(join(SRC, a)))).toEqual([]);
  });

  test("no file of src/ reads an error's details to decide (type the fact on the error instead)", () => {
    const found = sources().flatMap((rel) => (allowed(rel) ? [] : detailReads(readFileSync(join(SRC, rel), "utf8")).map((l) => `src/${rel}:${l}`)));
    expect(found).toEqual([]);
  });
});
