/**
 * Runs the agent as a subprocess in the lab's agent namespace
 * (`ip netns exec <ns> bun src/main.ts net ...`) and collects its output: exit
 * code, stdout (JSON when asked), and the JSON log lines from stderr.
 */
import { join } from "node:path";
import type { Lab } from "../../helpers/netns.ts";
import { readJsonLines } from "../../helpers/json-lines.ts";

export const MAIN = join(import.meta.dir, "../../../src/main.ts");

export interface AgentRun {
  readonly pid: number;
  /** Log records so far (parsed JSON lines of stderr). */
  readonly logs: Record<string, unknown>[];
  readonly stderr: () => string;
  readonly stdout: () => string;
  readonly done: Promise<{ code: number; stdout: string; stderr: string; logs: Record<string, unknown>[]; ms: number }>;
  kill(): void;
}

/** `wrap`: argv put before the agent inside the namespace (e.g. a shell that bind-mounts a file first). */
export function startAgent(lab: Lab, args: string[], wrap: readonly string[] = []): AgentRun {
  const t0 = performance.now();
  const p = Bun.spawn(["ip", "netns", "exec", lab.agentNs, ...wrap, process.execPath, MAIN, "net", ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, METAL_LOG_FORMAT: "json" },
  });
  const logs: Record<string, unknown>[] = [];
  const errReader = readJsonLines(p.stderr, logs);
  const readErr = errReader.done;
  let out = "";
  const readOut = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of p.stdout) out += dec.decode(chunk, { stream: true });
  })();
  const done = (async () => {
    await readOut;
    const stdout = out;
    const code = await p.exited;
    await readErr;
    return { code, stdout, stderr: errReader.text(), logs, ms: performance.now() - t0 };
  })();
  return { pid: p.pid, logs, stderr: errReader.text, stdout: () => out, done, kill: () => p.kill() };
}

export const runAgent = (lab: Lab, args: string[], wrap: readonly string[] = []) => startAgent(lab, args, wrap).done;

export const events = (logs: Record<string, unknown>[], name: string) => logs.filter((l) => l.event === name);
