import { describe, expect, test } from "bun:test";
import { parseProcStat, zombiesOf, zombiesToReap } from "../../src/init/reaper.ts";

describe("orphan reaper", () => {
  test("parses /proc/<pid>/stat, also with spaces and parentheses in the command name", () => {
    expect(parseProcStat("42 (sh) Z 1 42 42 0 -1 4194564 0")).toEqual({ pid: 42, comm: "sh", state: "Z", ppid: 1 });
    expect(parseProcStat("7 (a) b (c)) S 3 7 7")).toEqual({ pid: 7, comm: "a) b (c)", state: "S", ppid: 3 });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  test("reaps only zombies of PID 1 that the agent did not spawn itself, seen in the sweep before", () => {
    const procs = [
      { pid: 10, comm: "sleep", state: "Z", ppid: 1 },
      { pid: 11, comm: "insmod", state: "Z", ppid: 1 },
      { pid: 12, comm: "sh", state: "S", ppid: 1 },
      { pid: 13, comm: "x", state: "Z", ppid: 12 },
      { pid: 14, comm: "tar", state: "Z", ppid: 1 },
    ];
    // 14 became a zombie just now: Bun's own waitpid for it (a child_process spawn) must not fail with ECHILD.
    expect(zombiesToReap(procs, 1, new Set([11]), new Set([10, 11, 13]))).toEqual([10]);
    expect([...zombiesOf(procs, 1)]).toEqual([10, 11, 14]);
    // In the next sweep 14 is still a zombie: an orphan nobody waits for, reaped.
    expect(zombiesToReap(procs, 1, new Set([11]), zombiesOf(procs, 1))).toEqual([10, 14]);
  });
});
