/**
 * Output reaches a slow reader whole. The reader reads nothing until the agent has
 * filled the pipe (so it must wait for the reader) or has exited, then reads
 * everything: before FdOutput, Bun's process.exit() dropped what
 * was still buffered (`config --json | wc -c` got 131,072 of 4,469,246 bytes).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, constants, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.ts";
import { isRoot, sh, suffix } from "../helpers/netns.ts";
import { captureContext } from "../helpers/capture.ts";
import { waitFor } from "../../lab/base/wait.ts";
import { AGENT, REPO } from "./hostile.ts";

const dir = mkdtempSync(join(tmpdir(), "bounds-output-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Whether the agent is stuck on the full FIFO: it has written a pipe's worth (64 KiB,
 * /proc/PID/io wchar; non-blocking writes then get EAGAIN) or a thread of it sleeps in
 * pipe_write (a blocking write); or whether it is gone.
 */
function stuckOrGone(pid: number): boolean {
  try {
    const m = /wchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
    if (Number(m?.[1] ?? 0) >= 65_536) return true;
    // A blocking write(2) counts its bytes only when it returns: look for a thread inside it.
    return readdirSync(`/proc/${pid}/task`).some((t) => /pipe_write/.test(readFileSync(`/proc/${pid}/task/${t}/wchan`, "utf8")));
  } catch {
    return true;
  }
}

/**
 * Runs the command with the chosen stream going into a FIFO nobody reads (Bun reads
 * its own subprocess pipes eagerly, so they cannot be slow). Once the agent filled
 * the FIFO, or is gone, the FIFO is drained until the agent exited and it is empty.
 */
async function slowRead(cmd: string[], slow: "stdout" | "stderr"): Promise<{ code: number; out: string; err: string; blocked: boolean }> {
  const fifo = join(dir, `fifo-${suffix()}`);
  sh("mkfifo", fifo);
  // O_RDWR: the open does not wait for a reader; the agent gets a blocking pipe end.
  const writeEnd = openSync(fifo, "r+");
  const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const proc = Bun.spawn(cmd, {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", METAL_LOG_FORMAT: "json" },
      stdout: slow === "stdout" ? writeEnd : "pipe",
      stderr: slow === "stderr" ? writeEnd : "pipe",
      timeout: 60_000,
      killSignal: "SIGKILL",
    });
    const other = new Response(slow === "stdout" ? (proc.stderr as ReadableStream<Uint8Array>) : (proc.stdout as ReadableStream<Uint8Array>)).text();
    await waitFor(() => stuckOrGone(proc.pid), 30_000, "the agent to fill the pipe or exit", 10);
    const blocked = proc.exitCode === null;
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(1 << 16);
    const drain = (): boolean => {
      for (;;) {
        let n: number;
        try {
          n = readSync(readEnd, buf, 0, buf.length, null);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "EAGAIN") return false;
          throw e;
        }
        if (n === 0) return true;
        chunks.push(Buffer.from(buf.subarray(0, n)));
      }
    };
    await waitFor(
      () => {
        drain();
        return proc.exitCode !== null && (drain(), true);
      },
      60_000,
      "the agent to exit with the FIFO drained",
      5,
    );
    const code = await proc.exited;
    const text = Buffer.concat(chunks).toString();
    return { code, out: slow === "stdout" ? text : await other, err: slow === "stderr" ? text : await other, blocked };
  } finally {
    closeSync(writeEnd);
    closeSync(readEnd);
  }
}

/** A 4 MB cmdline: the URL plus many unknown parameters (kept in the config view). */
const bigCmdline = "METAL_BOOT_URL=https://[fd00::1]/ " + Array.from({ length: 90_000 }, (_, i) => `x${i}=${"v".repeat(40)}`).join(" ");

describe("every byte reaches a slow reader", () => {
  test("config --json of a 4 MB cmdline through a pipe read late: all of it, byte for byte", async () => {
    const file = join(dir, "big.cmdline");
    writeFileSync(file, bigCmdline);
    const expected = captureContext({ [file]: bigCmdline });
    expect(await runCli(["config", "--json", "--file", file], expected.ctx)).toBe(0);
    expect(expected.out().length).toBeGreaterThan(4_000_000);
    const r = await slowRead([...AGENT, "config", "--json", "--file", file], "stdout");
    expect(r.code).toBe(0);
    expect(r.blocked).toBe(true);
    expect(r.out.length).toBe(expected.out().length);
    expect(r.out).toBe(expected.out());
  });

  test("the final error line survives a slow stderr, whole (a 4 MB line naming the parameter)", async () => {
    const file = join(dir, "bad.cmdline");
    const value = `https://${"a".repeat(4_000_000)}`;
    writeFileSync(file, `METAL_BOOT_URL=${value}`);
    const r = await slowRead([...AGENT, "config", "--file", file], "stderr");
    expect(r.code).toBe(2);
    expect(r.blocked).toBe(true);
    expect(r.err.length).toBeGreaterThan(4_000_000);
    expect(r.err).toStartWith(`metal-hammer: METAL_BOOT_URL="https://aaaa`);
    expect(r.err).toEndWith(`": expected the metal-boot base URL: an https:// URL whose host is an IPv6 literal in brackets or a hostname\n`);
  });

  // Root: a namespace of our own with enough interfaces to make `net status --json` large.
  const netnsReason = isRoot ? "" : "skipped: net status over many interfaces needs root for a namespace of its own";
  if (!isRoot && process.env.CI === "true") test("net status --json through a slow reader (needs root)", () => void expect(netnsReason).toBe(""));
  test.skipIf(!isRoot)(`net status --json of 300 interfaces (150 veth pairs) through a pipe read late: all of it ${netnsReason}`, async () => {
    const ns = `mhb${suffix()}`;
    sh("ip", "netns", "add", ns);
    try {
      const batch = join(dir, `${ns}.batch`);
      const lines: string[] = [];
      for (let i = 0; i < 150; i++) {
        lines.push(`link add a${i} type veth peer name b${i}`);
        for (const n of [`a${i}`, `b${i}`]) lines.push(`address add fd00:${i.toString(16)}:${n.startsWith("a") ? 1 : 2}::1/64 dev ${n} nodad`);
      }
      writeFileSync(batch, lines.join("\n") + "\n");
      sh("ip", "-n", ns, "-batch", batch);
      const full = sh("ip", "netns", "exec", ns, ...AGENT, "net", "status", "--json", "--resolv-conf", "/nonexistent");
      expect(full.length).toBeGreaterThan(65_536);
      const r = await slowRead(["ip", "netns", "exec", ns, ...AGENT, "net", "status", "--json", "--resolv-conf", "/nonexistent"], "stdout");
      expect(r.code).toBe(0);
      expect(r.out.length).toBe(full.length);
      const view = JSON.parse(r.out) as { links: unknown[] };
      expect(view.links.length).toBeGreaterThanOrEqual(300);
    } finally {
      sh("ip", "netns", "del", ns);
    }
  });
});
