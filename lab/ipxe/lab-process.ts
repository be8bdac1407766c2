/**
 * Small process and wait helpers for the chain lab: spawn with captured, time-stamped
 * output; bounded waits; run-or-throw. Kills only what it spawned, by PID.
 */
import type { Subprocess } from "bun";

export interface Chunk {
  readonly t: number;
  readonly text: string;
}

/** A spawned process whose stdout+stderr are collected with arrival times. */
export class Proc {
  readonly chunks: Chunk[] = [];
  private readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly name: string;
  exitCode: number | null = null;

  constructor(name: string, argv: string[]) {
    this.name = name;
    this.proc = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    void this.proc.exited.then((c) => (this.exitCode = c));
    void this.pump(this.proc.stdout);
    void this.pump(this.proc.stderr);
  }

  get pid(): number {
    return this.proc.pid;
  }

  get exited(): Promise<number> {
    return this.proc.exited;
  }

  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const dec = new TextDecoder();
    for await (const b of stream) this.chunks.push({ t: Date.now(), text: dec.decode(b, { stream: true }) });
  }

  /** All output so far, terminal escapes removed. */
  text(): string {
    return stripAnsi(this.chunks.map((c) => c.text).join(""));
  }

  /** Arrival time of the chunk that completed the first match of `re`, or undefined. */
  timeOf(re: RegExp): number | undefined {
    let acc = "";
    for (const c of this.chunks) {
      acc += c.text;
      if (re.test(stripAnsi(acc))) return c.t;
    }
    return undefined;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  async stop(graceMs = 3000): Promise<void> {
    if (this.exitCode !== null) return;
    this.proc.kill("SIGTERM");
    const gone = await Promise.race([this.proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
    if (!gone) {
      this.proc.kill("SIGKILL");
      await this.proc.exited;
    }
  }
}

export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1bc|\r/g, "");
}

/** Runs a command to completion; throws with its stderr when it fails. */
export async function run(argv: string[]): Promise<string> {
  const p = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")}: exit ${code}: ${err.trim()}`);
  return out;
}
