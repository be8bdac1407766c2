/**
 * Runs a host tool with a bound: argv without a shell, an optional stdin text (how a
 * secret reaches a tool without argv or a file), output captured, killed at the bound.
 * Each output stream is kept up to a cap: a tool that writes more (a broken BMC's
 * endless answer) is killed there, so its output cannot grow PID 1 for the whole time
 * bound. Never throws for a non-zero exit or a missing tool: the caller decides.
 */
import { basename } from "node:path";

export interface ToolResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export interface ToolOptions {
  readonly timeoutMs: number;
  /** PATH the tool is looked up in (and passed on). */
  readonly path: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Written to the tool's stdin, then closed; without it stdin is /dev/null. */
  readonly stdin?: string;
  /** How long to wait for a tool killed at its bound (or whose pipes outlive it). */
  readonly killGraceMs: number;
  /** Bytes kept of stdout and of stderr each (default TOOL_OUTPUT_CAP). */
  readonly outputCap?: number;
}

/** What a tool may print on each stream: the largest the agent reads (lsblk, ipmitool fru) is a few KiB. */
export const TOOL_OUTPUT_CAP = 1 << 20;

/** Chunks of `stream` up to `cap` bytes; calls `over` once more arrives and stops reading. */
async function collect(stream: ReadableStream<Uint8Array>, cap: number, over: () => void): Promise<string> {
  const kept: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = cap - total;
    kept.push(value.byteLength > room ? value.subarray(0, room) : value);
    total += Math.min(value.byteLength, room);
    if (value.byteLength > room) {
      over();
      await reader.cancel();
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(kept));
}

export async function runTool(argv: readonly string[], opts: ToolOptions): Promise<ToolResult> {
  const name = argv[0] as string;
  const exe = Bun.which(name, { PATH: opts.path }) ?? name;
  let p;
  try {
    p = Bun.spawn([exe, ...argv.slice(1)], {
      stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: opts.path, LANG: "C", ...opts.env },
    });
  } catch (e) {
    return { code: 127, stdout: "", stderr: `cannot run ${name}: ${(e as Error).message}`, timedOut: false };
  }
  let timedOut = false;
  // Waiting ends at most killGraceMs after the kill or after the tool exited: a tool stuck
  // in the kernel (uninterruptible sleep) ignores SIGKILL, and a helper it left behind may
  // hold its output pipes open.
  let grace: ReturnType<typeof setTimeout> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let why = "";
  const abandoned = new Promise<undefined>((resolve) => {
    const later = (reason: string) => {
      why ||= reason;
      grace ??= setTimeout(() => resolve(undefined), opts.killGraceMs);
    };
    void p.exited.then(() => later("exited, but its output pipes stayed open (a process it started holds them)"));
    timer = setTimeout(() => {
      timedOut = true;
      p.kill("SIGKILL");
      later("did not exit after SIGKILL (stuck in the kernel)");
    }, opts.timeoutMs);
  });
  const cap = opts.outputCap ?? TOOL_OUTPUT_CAP;
  let overflow = "";
  const over = (stream: string) => () => {
    overflow ||= stream;
    p.kill("SIGKILL");
  };
  const r = await Promise.race([Promise.all([collect(p.stdout, cap, over("stdout")), collect(p.stderr, cap, over("stderr")), p.exited]), abandoned]);
  clearTimeout(timer);
  clearTimeout(grace);
  if (!r) return { code: p.exitCode ?? -1, stdout: "", stderr: `${name} ${why}: abandoned after ${opts.killGraceMs} ms`, timedOut };
  const [stdout, stderr, code] = r;
  if (!overflow) return { code, stdout, stderr, timedOut };
  // Output cut at the cap is never a success, whatever the exit: the caller would parse half an answer.
  const said = `${basename(name)} wrote more than the cap of ${cap} bytes on ${overflow}: killed, the rest not read`;
  return { code: code === 0 ? 1 : code, stdout, stderr: stderr === "" ? said : `${stderr.trimEnd()}\n${said}`, timedOut };
}
