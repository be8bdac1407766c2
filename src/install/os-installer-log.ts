/**
 * Reads what metal-stack's os-installer printed: one slog JSON record a line on stdout
 * (metal-stack/os-installer@7ea1c98 main.go:12 slog.NewJSONHandler, debug level; the
 * installer's attributes in the group "os-installer", pkg/installer/installer.go:30):
 * - "running install task" with `task-name` and `start-at` opens each task
 *   (installer.go:187,201); "skipping task as defined by installer configuration" names a
 *   skipped one (:192,197);
 * - "running install task failed" carries the `error` of the task last opened, logged
 *   without its `task-name` (:204, on the installer's logger, not the task's);
 * - "running command" (`command`) and "executed command with error" (`error`) bracket each
 *   tool it runs (pkg/exec/cmdexec.go:45,86; the failure's `output` is what the tool wrote to
 *   stdout); the tool's stderr goes straight to os-installer's (cmdexec.go:57), so the
 *   tool's own error lines ("grub-install: error: ...") come as plain lines;
 * - "os installer succeeded" ends a good run with `took` (installer.go:82);
 * - main's "unable to read configuration" is its verdict on the contract files (main.go:16,
 *   it goes on without them), "error while running machine installer" its last word before
 *   exit 1 (main.go:22).
 * Lines that are not such records are the tools' output. A reducer: `foldOsInstallerLine`
 * takes one line at a time (the runner feeds it while the installer runs, in bounded
 * memory), `osInstallerRun` reads the result; `parseOsInstallerLog` does both for a list.
 * Pure: no I/O, task durations from the records' `time`.
 */

export interface OsInstallerTask {
  readonly name: string;
  /** The record's time (RFC 3339). */
  readonly at: string;
  /** Until the next task opened, or the run ended; undefined when nothing followed. */
  readonly ms: number | undefined;
}

export interface OsInstallerFailedTask {
  /** The task os-installer opened last before it reported the failure. */
  readonly task: string;
  /** os-installer's error for it (often just "exit status 1"). */
  readonly error: string;
  /** The tool whose failure was os-installer's last record before the task failed (its command line). */
  readonly command: string | undefined;
  /** The last lines the tools printed since the task opened (they say why: "grub-install: error: ..."). */
  readonly output: readonly string[];
}

export interface OsInstallerRun {
  readonly tasks: readonly OsInstallerTask[];
  readonly skipped: readonly string[];
  readonly succeeded: boolean;
  /** os-installer's own `took` of the whole run (a Go duration, "1.234s"). */
  readonly took: string | undefined;
  /** The task that failed, its error, the tool and the tool's last lines. */
  readonly failed: OsInstallerFailedTask | undefined;
  /** The task opened last when the output ended with neither success nor a failed task (killed, crashed). */
  readonly running: string | undefined;
  /** Why os-installer could not read machine-details.yaml or machine-allocation.yaml. */
  readonly configError: string | undefined;
  /** main's last word ("error while running machine installer"): os detection failed, ... */
  readonly verdict: string | undefined;
}

/** Lines of the failed task's tools kept for its error. */
export const OUTPUT_LINES = 5;
/** Tasks kept (os-installer v0.3.1 has 19); more are counted as the last one's time only. */
export const MAX_TASKS = 100;
/** A kept text (a tool line, an error) is cut here: memory stays bounded whatever the installer prints. */
export const TEXT_MAX = 4_000;

/** The reducer's state: what the lines so far said. */
export interface OsInstallerLogState {
  readonly opened: readonly { readonly name: string; readonly at: string }[];
  /** The task opened last (also past MAX_TASKS). */
  readonly current: string | undefined;
  readonly skipped: readonly string[];
  readonly ended: string | undefined;
  readonly succeeded: boolean;
  readonly took: string | undefined;
  readonly failed: OsInstallerFailedTask | undefined;
  readonly configError: string | undefined;
  readonly verdict: string | undefined;
  /** Tool lines since the current task opened (the last OUTPUT_LINES). */
  readonly output: readonly string[];
  /** The command of the last "running command" record. */
  readonly command: string | undefined;
  /** The command whose failure was the last record (cleared by any other record). */
  readonly commandFailed: string | undefined;
}

export const OS_INSTALLER_LOG_START: OsInstallerLogState = {
  opened: [],
  current: undefined,
  skipped: [],
  ended: undefined,
  succeeded: false,
  took: undefined,
  failed: undefined,
  configError: undefined,
  verdict: undefined,
  output: [],
  command: undefined,
  commandFailed: undefined,
};

type Rec = { time?: unknown; msg?: unknown; error?: unknown; "os-installer"?: unknown };

function record(line: string): Rec | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const r = JSON.parse(line) as unknown;
    return r !== null && typeof r === "object" && !Array.isArray(r) ? (r as Rec) : undefined;
  } catch {
    return undefined;
  }
}

const cut = (s: string): string => (s.length > TEXT_MAX ? s.slice(0, TEXT_MAX) : s);
const text = (v: unknown): string | undefined => (typeof v === "string" ? cut(v) : undefined);
const group = (r: Rec): Record<string, unknown> => {
  const g = r["os-installer"];
  return g !== null && typeof g === "object" && !Array.isArray(g) ? (g as Record<string, unknown>) : {};
};

/** One line of os-installer's output folded into the state. Pure. */
export function foldOsInstallerLine(s: OsInstallerLogState, raw: string): OsInstallerLogState {
  const line = raw.replace(/\r$/, "");
  const r = record(line);
  if (!r) return line.trim() === "" ? s : { ...s, output: [...s.output, cut(line)].slice(-OUTPUT_LINES) };
  const g = group(r);
  const at = text(r.time) ?? "";
  const next = { ...s, commandFailed: undefined };
  switch (r.msg) {
    case "running install task": {
      const name = text(g["task-name"]) ?? "(unnamed)";
      const opened = s.opened.length < MAX_TASKS ? [...s.opened, { name, at }] : s.opened;
      return { ...next, opened, current: name, output: [], command: undefined };
    }
    case "skipping task as defined by installer configuration":
      return s.skipped.length < MAX_TASKS ? { ...next, skipped: [...s.skipped, text(g["task-name"]) ?? "(unnamed)"] } : next;
    case "running command":
      return { ...next, command: text(g.command) };
    case "executed command with error": {
      const out = (text(g.output) ?? "").split("\n").filter((l) => l.trim() !== "");
      return { ...next, commandFailed: s.command ?? "(a command)", output: [...s.output, ...out].slice(-OUTPUT_LINES) };
    }
    case "running install task failed":
      return {
        ...next,
        ended: s.ended ?? at,
        failed: { task: s.current ?? "(before the first task)", error: text(g.error) ?? text(r.error) ?? "", command: s.commandFailed, output: s.output },
      };
    case "os installer succeeded":
      return { ...next, ended: s.ended ?? at, succeeded: true, took: text(g.took) };
    case "unable to read configuration":
      return { ...next, configError: text(r.error) ?? text(g.error) ?? "" };
    case "error while running machine installer":
      return { ...next, verdict: text(r.error) ?? text(g.error) ?? "" };
    default:
      return next;
  }
}

/** What the folded lines say about the run. Pure. */
export function osInstallerRun(s: OsInstallerLogState): OsInstallerRun {
  const ms = (from: string, to: string | undefined): number | undefined => {
    const a = Date.parse(from);
    const b = to === undefined ? NaN : Date.parse(to);
    return Number.isFinite(a) && Number.isFinite(b) ? Math.max(0, b - a) : undefined;
  };
  const tasks = s.opened.map((t, i) => ({ name: t.name, at: t.at, ms: ms(t.at, s.opened[i + 1]?.at ?? s.ended) }));
  const running = !s.succeeded && s.failed === undefined ? s.current : undefined;
  return { tasks, skipped: s.skipped, succeeded: s.succeeded, took: s.took, failed: s.failed, running, configError: s.configError, verdict: s.verdict };
}

export function parseOsInstallerLog(lines: readonly string[]): OsInstallerRun {
  return osInstallerRun(lines.reduce(foldOsInstallerLine, OS_INSTALLER_LOG_START));
}
