/**
 * Runs a host tool with a bound: argv without a shell, an optional stdin text (how a
 * secret reaches a tool without argv or a file), output captured, killed at the bound.
 * Never throws for a non-zero exit or a missing tool: the caller decides.
 */

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
  const r = await Promise.race([Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]), abandoned]);
  clearTimeout(timer);
  clearTimeout(grace);
  if (!r) return { code: p.exitCode ?? -1, stdout: "", stderr: `${name} ${why}: abandoned after ${opts.killGraceMs} ms`, timedOut };
  const [stdout, stderr, code] = r;
  return { code, stdout, stderr, timedOut };
}
