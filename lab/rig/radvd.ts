/**
 * Starting radvd in a network namespace, the one way every lab rig does it: in the
 * foreground (-n), logging to a file, with its own pid file; ready when the pid file
 * has its PID, bounded, and a radvd that exits first fails with its log. The caller
 * ends it by the returned PID.
 */
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { waitFor } from "../base/wait.ts";

export interface RadvdStart {
  /** Wraps an argv to run in the namespace (`ip netns exec <ns> ...`). */
  readonly exec: (argv: readonly string[]) => string[];
  /** The config file (radvd-conf.ts renders it; the bring-up tests take fixtures). */
  readonly conf: string;
  /** A fresh path per start: a radvd being stopped may still hold (and then remove) an old one. */
  readonly pidFile: string;
  /** radvd's stdout and stderr. */
  readonly log: string;
  /** How long radvd may take to write its pid file (default 10 s). */
  readonly timeoutMs?: number;
  /** Where the wait is announced ("waiting up to ..."); default: nowhere. */
  readonly say?: (line: string) => void;
}

export const RADVD_START_MS = 10_000;

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback;
  }
}

export async function startRadvd(o: RadvdStart): Promise<Subprocess> {
  const timeoutMs = o.timeoutMs ?? RADVD_START_MS;
  const out = Bun.file(o.log);
  const p = Bun.spawn(o.exec(["radvd", "-n", "-C", o.conf, "-p", o.pidFile, "-m", "stderr"]), { stdin: "ignore", stdout: out, stderr: out });
  o.say?.(`waiting up to ${timeoutMs / 1000} s for radvd (PID ${p.pid}) to write its pid file`);
  try {
    await waitFor(
      () => {
        if (p.exitCode !== null) throw new Error(`radvd (${o.conf}) exited ${p.exitCode}: ${readOr(o.log, "").trim()}`);
        return readOr(o.pidFile, "").trim() !== "";
      },
      timeoutMs,
      `radvd's pid file ${o.pidFile}`,
    );
  } catch (e) {
    p.kill("SIGKILL");
    throw e;
  }
  return p;
}
