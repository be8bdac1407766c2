/**
 * Orphans re-parented to PID 1 become zombies until PID 1 waits for them. Children
 * the agent spawned itself are waited for by Bun; reaping them here would steal
 * their exit status, so the sweep picks only zombies that are not tracked. Pure.
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
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const ppid = Number(rest[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !rest[0]) return undefined;
  return { pid, comm: text.slice(open + 1, close), state: rest[0], ppid };
}

export function zombiesToReap(procs: readonly ProcStat[], self: number, tracked: ReadonlySet<number>): number[] {
  return procs.filter((p) => p.state === "Z" && p.ppid === self && !tracked.has(p.pid)).map((p) => p.pid);
}
