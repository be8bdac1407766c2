/** Runs the agent (source or compiled binary) inside the test netns, bounded, and keeps every byte it printed. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "../../..");

export interface AgentRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly ms: number;
  /** stderr JSON log lines. */
  readonly logs: Record<string, unknown>[];
}

/** Everything any agent printed in this process (scanned for tokens at the end). */
export const transcript: string[] = [];

export async function runAgent(ns: string, args: readonly string[], opts: { env?: Record<string, string>; timeoutMs?: number; binary?: string } = {}): Promise<AgentRun> {
  const entry = opts.binary ? [opts.binary] : [process.execPath, join(REPO, "src/main.ts")];
  const t0 = performance.now();
  const proc = Bun.spawn(["ip", "netns", "exec", ns, ...entry, ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json", ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
    timeout: opts.timeoutMs ?? 60_000,
    killSignal: "SIGKILL",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  transcript.push(out, err);
  const logs = err
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, out, err, ms: Math.round(performance.now() - t0), logs };
}

/** Everything any agent printed in this process plus a stand-in request log file (for secret scans). */
export function everythingPrinted(requestLog: string): string {
  return transcript.join("\n") + readFileSync(requestLog, "utf8");
}

/** The tokens among `issued` that appear in `text`, whole or by their signature. */
export function leakedTokens(issued: readonly string[], text: string): string[] {
  return issued.filter((t) => text.includes(t) || text.includes(t.split(".")[2] ?? t));
}
