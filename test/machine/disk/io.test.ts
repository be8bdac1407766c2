/**
 * The real tool runner (systemDiskIo().run) keeps its bound: a tool killed at its bound
 * comes back as timedOut, and a tool whose output pipes stay open after it exited (a
 * helper it left behind holds them) does not hang the wipe: waiting ends killGraceMs later.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemDiskIo } from "../../../src/machine/disk/io.ts";

const dirs: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("systemDiskIo().run", () => {
  test("a tool that answers: exit code and output", async () => {
    const r = await systemDiskIo().run(["sh", "-c", "echo out; echo err >&2; exit 3"], { timeoutMs: 10_000 });
    expect(r).toEqual({ code: 3, stdout: "out\n", stderr: "err\n", timedOut: false });
  });

  test("a tool past its bound is killed and reported as timedOut", async () => {
    const t0 = performance.now();
    const r = await systemDiskIo({ killGraceMs: 200 }).run(["sh", "-c", "exec sleep 30"], { timeoutMs: 150 });
    expect(r.timedOut).toBe(true);
    expect(r.code).not.toBe(0);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  test("a tool whose helper keeps its output pipes open: waiting ends killGraceMs after the tool exited", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mh-disk-io-"));
    dirs.push(dir);
    const pidFile = join(dir, "helper.pid");
    const t0 = performance.now();
    // The helper inherits stdout/stderr and outlives the tool; its pid goes to a file so the test can kill it.
    const r = await systemDiskIo({ killGraceMs: 200 }).run(["sh", "-c", `sleep 30 & echo $! > ${pidFile}; exit 0`], { timeoutMs: 20_000 });
    pids.push(Number(readFileSync(pidFile, "utf8").trim()));
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(r.code).toBe(0);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toContain("output pipes stayed open");
  });
});
