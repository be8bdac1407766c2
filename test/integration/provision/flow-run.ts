/**
 * The agent's flow (`run` through test/integration/api/agent-driver.ts: the real CLI,
 * disks and BMC never touched, kept from the host's disks by lab/base/diskless.ts) inside a
 * network namespace, bounded (100 s, then SIGKILL), its JSON log lines parsed. Used by
 * the whole-flow and the dual-homed suites.
 */
import { join } from "node:path";
import { disklessArgv } from "../../../lab/base/diskless.ts";
import { REPO } from "../api/agent.ts";

export type Log = Record<string, unknown>;

export interface FlowRun {
  readonly run: string;
  readonly err: string;
  readonly code: number;
  readonly logs: Log[];
  ev(name: string): Log[];
}

/** `run [extra...] --run-dir <run> --cmdline <cmdline>` in `ns`; resolv.conf goes to `resolvConf`; `env` adds to the driver's environment (FAKE_TARGET); `onLog` sees each log line as it comes. */
export async function runFlowIn(
  ns: string,
  o: {
    readonly run: string;
    readonly cmdline: string;
    readonly resolvConf: string;
    readonly extra?: readonly string[];
    readonly onLog?: (l: Log) => void;
    readonly env?: Record<string, string>;
  },
): Promise<FlowRun> {
  const proc = Bun.spawn(
    [
      "ip",
      "netns",
      "exec",
      ns,
      ...disklessArgv([process.execPath, join(REPO, "test/integration/api/agent-driver.ts"), "run", ...(o.extra ?? []), "--run-dir", o.run, "--cmdline", o.cmdline]),
    ],
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json", RESOLV_CONF: o.resolvConf, ...o.env },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 100_000,
      killSignal: "SIGKILL",
    },
  );
  // Read as it comes: `onLog` sees each JSON line while the agent runs.
  const logs: Log[] = [];
  let err = "";
  let partial = "";
  const decoder = new TextDecoder();
  const read = (async () => {
    for await (const chunk of proc.stderr) {
      const text = decoder.decode(chunk, { stream: true });
      err += text;
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines.filter((x) => x.startsWith("{"))) {
        const rec = JSON.parse(l) as Log;
        logs.push(rec);
        o.onLog?.(rec);
      }
    }
  })();
  const [code] = await Promise.all([proc.exited, read]);
  if (partial.startsWith("{")) logs.push(JSON.parse(partial) as Log);
  return { run: o.run, err, code, logs, ev: (name: string) => logs.filter((l) => l.event === name) };
}
