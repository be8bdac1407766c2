/**
 * Orphans re-parented to PID 1 become zombies until PID 1 waits for them. Children
 * the agent spawned itself are waited for by Bun; reaping them here would steal
 * their exit status (Bun's own waitpid then fails with ECHILD: seen in the QEMU lab
 * with the disk tools and tar), so the sweep picks only zombies that are not tracked
 * and were already zombies in the sweep before (Bun waits for its children within
 * milliseconds; an orphan stays a zombie until reaped). Pure.
 */
export interface ProcStat {
  readonly pid: number;
  readonly comm: string;
  readonly state: string;
  readonly ppid: number;
}

/** /proc/<pid>/stat: `pid (comm) state ppid ...`; comm may hold spaces and parentheses. */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const ppid = Number(rest[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !rest[0]) return undefined;
  return { pid, comm: text.slice(open + 1, close), state: rest[0], ppid };
}

/** The zombies of `self` now (pass them as `earlier` to the next sweep). */
export function zombiesOf(procs: readonly ProcStat[], self: number): Set<number> {
  return new Set(procs.filter((p) => p.state === "Z" && p.ppid === self).map((p) => p.pid));
}

/** Zombies of `self` that are not tracked and were zombies in the sweep before (`earlier`). */
export function zombiesToReap(procs: readonly ProcStat[], self: number, tracked: ReadonlySet<number>, earlier: ReadonlySet<number>): number[] {
  return [...zombiesOf(procs, self)].filter((pid) => !tracked.has(pid) && earlier.has(pid));
}
