/**
 * The error of an installer that did not succeed (exit 54, `installer`): which binary, how it
 * ended (exit status, signal, killed at its bound), what os-installer said went wrong (the
 * task it reported failed with its error and the tool behind it, or that it could not read
 * its configuration, or its last word), and the last lines of its output. An installer that
 * prints no os-installer records (the lab's test OS `/install.sh`) gets the binary, the end
 * and its last lines. Every text is made one-line safe (escape-line.ts) and scrubbed of
 * secrets last, over the whole message and every detail. Pure.
 */
import { escapeLine } from "./escape-line.ts";
import type { OsInstallerRun } from "./os-installer-log.ts";

export type InstallerEnd =
  | { readonly kind: "exit"; readonly code: number }
  | { readonly kind: "signal"; readonly signal: string }
  | { readonly kind: "timeout"; readonly timeoutMs: number };

export interface InstallerFailureInput {
  readonly binary: string;
  readonly end: InstallerEnd;
  /** What its output said, read by os-installer-log.ts (empty for an installer that is not os-installer). */
  readonly run: OsInstallerRun;
  /** Its last output lines, oldest first, as the runner keeps them: escaped and scrubbed. */
  readonly last: readonly string[];
  readonly scrub?: (text: string) => string;
}

export interface InstallerFailure {
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** Output lines at the end of the message. */
export const TAIL_LINES = 10;

/** A name or command line: one line, short. */
const oneLine = (s: string): string => escapeLine(s.replace(/\n/g, "\\n"), 500);
/** An error that may span lines (Go's protoyaml shows the offending source line): each line escaped, indented. */
const lines = (s: string): string =>
  s
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "")
    .map((l) => escapeLine(l))
    .join("\n    ");

function head(binary: string, end: InstallerEnd): string {
  switch (end.kind) {
    case "exit":
      return `installer: ${binary} failed (exit ${end.code})`;
    case "signal":
      return `installer: ${binary} failed (signal ${end.signal})`;
    case "timeout":
      return `installer: ${binary} did not finish within ${Math.round(end.timeoutMs / 1000)} s and was killed`;
  }
}

/** What os-installer reported: the rest of the headline, and the indented lines under it. */
function reported(run: OsInstallerRun): { headline: string; more: string[] } {
  const f = run.failed;
  if (f) return { headline: ` in os-installer task "${oneLine(f.task)}": ${lines(f.error) || "(no error text)"}`, more: f.command ? [`command: ${oneLine(f.command)}`] : [] };
  const headline = `${run.running !== undefined ? ` during os-installer task "${oneLine(run.running)}"` : ""}${run.verdict !== undefined ? `: ${lines(run.verdict)}` : ""}`;
  return { headline, more: run.configError !== undefined ? [`os-installer could not read its configuration: ${lines(run.configError)}`] : [] };
}

const section = (title: string, body: readonly string[]): string => `${title}:\n    ${body.join("\n    ")}`;

export function installerFailure(i: InstallerFailureInput): InstallerFailure {
  const scrub = i.scrub ?? ((t: string) => t);
  const tail = i.last.slice(-TAIL_LINES);
  const f = i.run.failed;
  const { headline, more } = reported(i.run);
  // The failed task's tools said why; shown apart when those lines are no longer in the tail.
  const tools = f ? f.output.map((l) => scrub(escapeLine(l))) : [];
  if (tools.length > 0 && !tools.every((l) => tail.includes(l))) more.push(section("the task's tools printed", tools));
  more.push(tail.length > 0 ? section("its last lines", tail) : "no output");
  const message = scrub(`${head(i.binary, i.end)}${headline}\n  ${more.join("\n  ")}`);
  const s = (v: string | undefined): string | undefined => (v === undefined ? undefined : scrub(v));
  // `installerExit`, not `exitCode`: agent.fatal spreads the details over its own exitCode (54).
  const details: Record<string, unknown> = {
    binary: i.binary,
    ...(i.end.kind === "exit" ? { installerExit: i.end.code } : i.end.kind === "signal" ? { signal: i.end.signal } : { timeoutMs: i.end.timeoutMs }),
    ...(f ? { task: s(f.task), taskError: s(f.error), ...(f.command ? { command: s(f.command) } : {}) } : {}),
    ...(i.run.running !== undefined ? { task: s(i.run.running) } : {}),
    ...(i.run.configError !== undefined ? { configError: s(i.run.configError) } : {}),
    ...(i.run.verdict !== undefined && !f ? { verdict: s(i.run.verdict) } : {}),
    last: tail.map(scrub),
  };
  return { message, details };
}
