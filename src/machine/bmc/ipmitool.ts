/**
 * The BMC's only contact with the machine: ipmitool, in-band through /dev/ipmi0
 * (`-I open`), each call bounded (time, and output: src/platform/sys/tool.ts). A password
 * reaches ipmitool on stdin through its `exec` command (a script read from
 * /proc/self/fd/0) as the raw command's hex bytes (set-user-password.ts), never in argv,
 * the environment or a file; go-hal passes it in argv (metal-stack/go-hal@4ca05b53
 * internal/ipmi/ipmitool.go:409-440), where any `ps` on the machine shows it.
 */
import { runTool, type ToolResult } from "../../platform/sys/tool.ts";

export interface Ipmitool {
  /** `ipmitool <interface args> <args>`; never throws (a missing tool is code 127). */
  run(args: readonly string[]): Promise<ToolResult>;
  /** Runs one ipmitool command line holding a secret, fed on stdin (`exec /proc/self/fd/0`). */
  runSecret(line: string): Promise<ToolResult>;
  /** What is run, for log lines: "ipmitool -I open". */
  readonly describe: string;
}

export interface IpmitoolOptions {
  /** The ipmitool binary (looked up in PATH). */
  readonly command: string;
  /** The interface: `-I open` in-band; tests pass `-I lanplus -H ... -E` for ipmi_sim. */
  readonly interfaceArgs: readonly string[];
  readonly timeoutMs: number;
  readonly path: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly killGraceMs?: number;
}

/** How long one ipmitool call may take: a BMC that answers takes 40-200 ms in-band (docs/bmc.md). */
export const IPMITOOL_TIMEOUT_MS = 15_000;
export const IPMITOOL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

export function systemIpmitool(o: IpmitoolOptions): Ipmitool {
  const argv = (args: readonly string[]) => [o.command, ...o.interfaceArgs, ...args];
  const opts = { timeoutMs: o.timeoutMs, path: o.path, killGraceMs: o.killGraceMs ?? 2_000, ...(o.env ? { env: o.env } : {}) };
  return {
    run: (args) => runTool(argv(args), opts),
    runSecret: (line) => runTool(argv(["exec", "/proc/self/fd/0"]), { ...opts, stdin: `${line}\n` }),
    describe: ["ipmitool", ...o.interfaceArgs.filter((a) => a !== "-E")].join(" "),
  };
}

/** The in-band ipmitool of the initramfs. */
export function inBandIpmitool(): Ipmitool {
  return systemIpmitool({ command: "ipmitool", interfaceArgs: ["-I", "open"], timeoutMs: IPMITOOL_TIMEOUT_MS, path: IPMITOOL_PATH });
}
