/** Runs the agent (source or compiled binary) inside the test netns, bounded, and keeps every byte it printed. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { disklessArgv } from "../../../lab/base/diskless.ts";
import { lldpNeighbour } from "../../helpers/lldp-neighbour.ts";

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

/** Two switches seen by LLDP on `ifname` (for a Register the strict stand-in accepts). */
export function twoSwitches(ifname: string): string {
  const n = (systemName: string, portId: string) => lldpNeighbour({ interface: ifname, systemName, portId, chassisId: portId });
  return JSON.stringify([n("leaf01", "0c:00:00:00:01:01"), n("leaf02", "0c:00:00:00:02:01")]);
}

/**
 * Runs the agent in `ns`, kept from this host's disks by construction (lab/base/diskless.ts).
 * With `lldp` (FAKE_LLDP JSON) it runs through agent-driver.ts, whose LLDP session
 * reports those neighbours; else src/main.ts or `binary`.
 */
export async function runAgent(
  ns: string,
  args: readonly string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; binary?: string; lldp?: string } = {},
): Promise<AgentRun> {
  const entry = opts.binary ? [opts.binary] : [process.execPath, join(REPO, opts.lldp !== undefined ? "test/integration/api/agent-driver.ts" : "src/main.ts")];
  const t0 = performance.now();
  const proc = Bun.spawn(["ip", "netns", "exec", ns, ...disklessArgv([...entry, ...args])], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json", ...(opts.lldp !== undefined ? { FAKE_LLDP: opts.lldp } : {}), ...opts.env },
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
