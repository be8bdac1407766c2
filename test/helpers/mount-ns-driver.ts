/**
 * Runs a driver script in its own private mount namespace (`unshare --mount --propagation
 * private`), so the mounts it makes never reach the host's table, and reads its answer:
 * stdout is the agent's JSON log lines, then one `RESULT {...}` line. SIGKILLed at `boundMs`.
 */
export async function runMountNsDriver<R = Record<string, unknown>>(argv: readonly string[], boundMs: number): Promise<{ result: R; out: string; logLines: string[] }> {
  const p = Bun.spawn(["unshare", "--mount", "--propagation", "private", process.execPath, ...argv], { stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => p.kill("SIGKILL"), boundMs);
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  await p.exited;
  clearTimeout(killer);
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`driver ${argv[0]} gave no result (exit ${p.exitCode}): ${err.slice(-2000)}`);
  return { result: JSON.parse(line.slice(7)) as R, out: out.replace(line, ""), logLines: out.split("\n").filter((l) => l.startsWith("{")) };
}
