/**
 * Reads what metal-stack's os-installer printed: one slog JSON record a line on stdout
 * (metal-stack/os-installer@7ea1c98 main.go: slog.NewJSONHandler, debug level; the
 * installer's attributes in the group "os-installer", pkg/installer/installer.go):
 * "running install task" with `task-name` and `start-at` opens each task, "skipping
 * task as defined by installer configuration" names a skipped one, "running install
 * task failed" carries the `error` of the task last opened, "os installer succeeded"
 * ends a good run with `took`; main's "unable to read configuration" is its verdict on
 * the contract files. Lines that are not such records (the tools it runs print too)
 * are ignored. Pure: lines in, the run out (task durations from the records' `time`).
 */

export interface OsInstallerTask {
  readonly name: string;
  /** The record's time (RFC 3339). */
  readonly at: string;
  /** Until the next task opened, or the run ended; undefined when nothing followed. */
  readonly ms: number | undefined;
}

export interface OsInstallerRun {
  readonly tasks: readonly OsInstallerTask[];
  readonly skipped: readonly string[];
  readonly succeeded: boolean;
  /** os-installer's own `took` of the whole run (a Go duration, "1.234s"). */
  readonly took: string | undefined;
  /**
   * The task that failed (the last one opened), its error, and the last lines the tools it
   * ran printed since it opened (os-installer's own error is often just "exit status 1";
   * the tool's line says why: "grub-install: error: ...").
   */
  readonly failed: { readonly task: string; readonly error: string; readonly output: readonly string[] } | undefined;
  /** Why os-installer could not read machine-details.yaml or machine-allocation.yaml. */
  readonly configError: string | undefined;
}

/** Lines of the failed task's tools kept for its error. */
const OUTPUT_LINES = 5;

type Rec = { time?: unknown; msg?: unknown; error?: unknown; "os-installer"?: Record<string, unknown> };

function record(line: string): Rec | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const r = JSON.parse(line) as unknown;
    return r !== null && typeof r === "object" && !Array.isArray(r) ? (r as Rec) : undefined;
  } catch {
    return undefined;
  }
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export function parseOsInstallerLog(lines: readonly string[]): OsInstallerRun {
  const opened: { name: string; at: string }[] = [];
  const skipped: string[] = [];
  let ended: string | undefined;
  let succeeded = false;
  let took: string | undefined;
  let failed: OsInstallerRun["failed"];
  let configError: string | undefined;
  let output: string[] = [];
  for (const line of lines) {
    const r = record(line);
    if (!r) {
      if (line.trim() !== "") output = [...output, line].slice(-OUTPUT_LINES);
      continue;
    }
    const g = r["os-installer"] ?? {};
    const at = text(r.time) ?? "";
    switch (r.msg) {
      case "running install task":
        opened.push({ name: text(g["task-name"]) ?? "(unnamed)", at });
        output = [];
        break;
      case "skipping task as defined by installer configuration":
        skipped.push(text(g["task-name"]) ?? "(unnamed)");
        break;
      case "running install task failed":
        ended ??= at;
        failed = { task: opened.at(-1)?.name ?? "(before the first task)", error: text(g.error) ?? text(r.error) ?? "", output };
        break;
      case "os installer succeeded":
        ended ??= at;
        succeeded = true;
        took = text(g.took);
        break;
      case "unable to read configuration":
        configError = text(r.error) ?? text(g.error) ?? "";
        break;
    }
  }
  const ms = (from: string, to: string | undefined): number | undefined => {
    const a = Date.parse(from);
    const b = to === undefined ? NaN : Date.parse(to);
    return Number.isFinite(a) && Number.isFinite(b) ? Math.max(0, b - a) : undefined;
  };
  const tasks = opened.map((t, i) => ({ name: t.name, at: t.at, ms: ms(t.at, opened[i + 1]?.at ?? ended) }));
  return { tasks, skipped, succeeded, took, failed, configError };
}
