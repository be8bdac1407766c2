/**
 * runTool: a tool's output is kept up to a cap per stream; a tool that writes more is
 * killed there and its result is a failure naming the cap, so an endless writer cannot
 * grow the agent until the time bound.
 */
import { describe, expect, test } from "bun:test";
import { runTool, TOOL_OUTPUT_CAP } from "../../../src/platform/sys/tool.ts";

const opts = { timeoutMs: 10_000, path: "/usr/bin:/bin", killGraceMs: 1_000 };

describe("runTool", () => {
  test("output under the cap comes whole, with the tool's exit code", async () => {
    const r = await runTool(["sh", "-c", "printf 'a\\nb\\n'; printf 'warn\\n' >&2; exit 3"], opts);
    expect(r).toEqual({ code: 3, stdout: "a\nb\n", stderr: "warn\n", timedOut: false });
  });

  test("8 MiB on stdout from a tool that exits 0: cut at the cap, a failure, stderr naming the cap", async () => {
    const r = await runTool(["head", "-c", String(8 << 20), "/dev/zero"], opts);
    expect(r.stdout).toHaveLength(TOOL_OUTPUT_CAP);
    expect(r.code).not.toBe(0);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toBe("head wrote more than the cap of 1048576 bytes on stdout: killed, the rest not read");
  });

  test("an endless writer is killed at the cap, long before its time bound", async () => {
    const t0 = performance.now();
    const r = await runTool(["yes"], opts);
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(137);
    expect(r.stdout).toHaveLength(TOOL_OUTPUT_CAP);
    expect(r.stderr).toContain("yes wrote more than the cap of 1048576 bytes on stdout");
  });

  test("endless stderr is capped the same way; what it said before stays in front of the reason", async () => {
    const r = await runTool(["sh", "-c", "echo started; yes err >&2"], { ...opts, outputCap: 64 << 10 });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("started\n");
    const lines = r.stderr.split("\n");
    expect(lines[0]).toBe("err");
    expect(lines.at(-1)).toBe("sh wrote more than the cap of 65536 bytes on stderr: killed, the rest not read");
    expect(r.stderr.length).toBeLessThanOrEqual((64 << 10) + 100);
  });
});
