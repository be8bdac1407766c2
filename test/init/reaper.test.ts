import { describe, expect, test } from "bun:test";
import { parseProcStat, zombiesToReap } from "../../src/init/reaper.ts";

describe("orphan reaper", () => {
  test("parses /proc/<pid>/stat, also with spaces and parentheses in the command name", () => {
    expect(parseProcStat("42 (sh) Z 1 42 42 0 -1 4194564 0")).toEqual({ pid: 42, comm: "sh", state: "Z", ppid: 1 });
    expect(parseProcStat("7 (a) b (c)) S 3 7 7")).toEqual({ pid: 7, comm: "a) b (c)", state: "S", ppid: 3 });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  test("reaps only zombies of PID 1 that the agent did not spawn itself", () => {
    const procs = [
      { pid: 10, comm: "sleep", state: "Z", ppid: 1 },
      { pid: 11, comm: "insmod", state: "Z", ppid: 1 },
      { pid: 12, comm: "sh", state: "S", ppid: 1 },
      { pid: 13, comm: "x", state: "Z", ppid: 12 },
    ];
    expect(zombiesToReap(procs, 1, new Set([11]))).toEqual([10]);
  });
});
