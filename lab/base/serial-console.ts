/**
 * The serial console as the lab reads it: lines with their time since QEMU started,
 * the agent's JSON log records among them, and how the run ended. Pure.
 */
export interface ConsoleLine {
  /** Milliseconds since QEMU was started. */
  readonly ms: number;
  readonly text: string;
}

/** Splits a stream into lines; returns the complete lines and the unfinished rest. */
export function splitLines(pending: string, chunk: string): { lines: string[]; rest: string } {
  const parts = (pending + chunk).split("\n");
  const rest = parts.pop() as string;
  return { lines: parts.map(cleanLine), rest };
}

/** Reads `stream` to its end: `onChunk` sees each chunk as it came, `onLine` each cleaned line (the last one even without its newline). */
export async function eachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void, onChunk?: (chunk: Uint8Array) => void): Promise<void> {
  const dec = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    onChunk?.(chunk);
    const r = splitLines(rest, dec.decode(chunk, { stream: true }));
    rest = r.rest;
    r.lines.forEach(onLine);
  }
  if (rest !== "") onLine(cleanLine(rest));
}

/** Drops carriage returns and terminal escape sequences (SeaBIOS clears the screen). */
export function cleanLine(s: string): string {
  return s
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\x1bc/g, "")
    .replace(/[\r\x00-\x08\x0b-\x1f]/g, "");
}

export const stamp = (ms: number): string => `[${(ms / 1000).toFixed(3).padStart(8)}]`;

export type AgentRecord = Record<string, unknown> & { event?: string; msg?: string; level?: number };

/** The agent's JSON log record on a console line (the kernel may print in between: take from the first "{"). */
export function agentRecord(text: string): AgentRecord | undefined {
  const i = text.indexOf('{"level":');
  if (i < 0) return undefined;
  try {
    return JSON.parse(text.slice(i)) as AgentRecord;
  } catch {
    return undefined;
  }
}

/** A kernel message's time stamp (printk): where one cut into a line the agent was writing. */
const KERNEL_STAMP = /\[\s*\d+\.\d+\] /;
/** How many console lines one record may be spread over by kernel messages. */
const MAX_CUTS = 3;

/**
 * The agent's records among console lines. The kernel writes to the serial port directly,
 * so a message of its own printed while the agent wrote a line cuts that line in two:
 * `{"level":30,"ev[   12.3] random: crng init done` and `ent":"agent.config",...}`. A record
 * that does not parse is joined, without the kernel's message, with the line after it (at
 * most MAX_CUTS times); the record's time is its first line's.
 */
export function records(lines: readonly ConsoleLine[]): (AgentRecord & { ms: number })[] {
  const out: (AgentRecord & { ms: number })[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] as ConsoleLine;
    const start = first.text.indexOf('{"level":');
    if (start < 0) continue;
    let text = first.text.slice(start);
    let r = agentRecord(text);
    let j = i;
    while (r === undefined && j + 1 < lines.length && j - i < MAX_CUTS) {
      const cut = text.search(KERNEL_STAMP);
      if (cut < 0) break;
      j += 1;
      text = text.slice(0, cut) + (lines[j] as ConsoleLine).text;
      r = agentRecord(text);
    }
    if (r === undefined) continue;
    out.push({ ...r, ms: first.ms });
    i = j;
  }
  return out;
}

export type Outcome = "poweroff" | "reboot" | "halt" | "panic" | "timeout" | "crashed";

/**
 * How the run ended, from the kernel's last words (kernel/reboot.c prints them at
 * KERN_EMERG, visible even with `quiet`) and whether the bound passed first.
 */
export function classifyEnd(lines: readonly ConsoleLine[], timedOut: boolean): Outcome {
  if (timedOut) return "timeout";
  for (let i = lines.length - 1; i >= 0; i--) {
    const t = (lines[i] as ConsoleLine).text;
    if (/Kernel panic - not syncing/.test(t)) return "panic";
    if (/reboot: Power down/.test(t)) return "poweroff";
    if (/reboot: Restarting system/.test(t)) return "reboot";
    if (/reboot: System halted/.test(t)) return "halt";
  }
  return "crashed";
}

/** The lab's exit code: 0 when the run ended as expected, else one code per outcome. */
export const OUTCOME_EXIT: Readonly<Record<Outcome, number>> = { poweroff: 10, reboot: 11, halt: 12, panic: 13, timeout: 14, crashed: 15 };

export function labExitCode(outcome: Outcome, expected: Outcome): number {
  return outcome === expected ? 0 : OUTCOME_EXIT[outcome];
}

/** Port numbers in LISTEN state in a /proc/<pid>/net/tcp6 table (the server's own netns). */
export function listeningPorts(tcp6: string): Set<number> {
  const out = new Set<number>();
  for (const line of tcp6.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 3 && f[3] === "0A") out.add(parseInt((f[1] as string).split(":")[1] as string, 16));
  }
  return out;
}

/**
 * Where the clock's time went, one line per query (the clock stage, and metal-boot's
 * ntp_servers re-sync): from `clock.query` to its `clock.sync` or `clock.unsynced`, in
 * console time; a skipped stage says so. For the lab's summary.
 */
export function clockSummary(recs: readonly (AgentRecord & { ms: number })[]): string[] {
  const out: string[] = [];
  for (const [i, r] of recs.entries()) {
    if (r.event === "clock.skip") out.push(`clock: not asked: ${r.msg ?? "no NTP servers"}`);
    if (r.event !== "clock.query") continue;
    const servers = Array.isArray(r.servers) ? r.servers.join(", ") : "?";
    const end = recs.slice(i + 1).find((x) => x.event === "clock.sync" || x.event === "clock.unsynced");
    if (!end) out.push(`clock: asked ${servers}: no answer before the console ended`);
    else out.push(`clock: ${end.event === "clock.sync" ? "synced" : "unsynced"} in ${end.ms - r.ms} ms, asked ${servers}: ${end.msg ?? ""}`.trimEnd());
  }
  return out;
}

/** Console lines from time-stamped output chunks (each line at the time of the chunk that ended it, ms since `t0`). */
export function chunkLines(chunks: readonly { readonly t: number; readonly text: string }[], t0: number): ConsoleLine[] {
  const out: ConsoleLine[] = [];
  let rest = "";
  for (const c of chunks) {
    const r = splitLines(rest, c.text);
    rest = r.rest;
    for (const text of r.lines) out.push({ ms: c.t - t0, text });
  }
  if (rest !== "") out.push({ ms: (chunks.at(-1)?.t ?? t0) - t0, text: cleanLine(rest) });
  return out;
}
