import { describe, expect, test } from "bun:test";
import { AREAS, commitMessageProblems } from "../../tools/commit-message.ts";

const BODY = "\n\nWhat changed and why; 103 -> 51 ms measured.\n";

describe("the commit message rule", () => {
  test("a subject with a known area and a body passes, git's comment lines ignored", () => {
    expect(commitMessageProblems(`build: split chunks per command${BODY}# Please enter the commit message\n`)).toEqual([]);
    expect(commitMessageProblems(`install/efi: delete dead boot entries${BODY}`)).toEqual([]);
    expect(commitMessageProblems(`http, remote-log: one uplink connector${BODY}`)).toEqual([]);
  });

  test("git's merge subjects pass without a body", () => {
    expect(commitMessageProblems("Merge branch 'h35'\n")).toEqual([]);
  });

  test("a subject of 73 characters is refused with its length", () => {
    const subject = `docs: ${"x".repeat(67)}`;
    expect(subject.length).toBe(73);
    expect(commitMessageProblems(subject + BODY)).toEqual(["the subject has 73 characters, at most 72"]);
    expect(commitMessageProblems(subject.slice(0, 72) + BODY)).toEqual([]);
  });

  test("an area in another spelling or outside the list is named", () => {
    expect(commitMessageProblems(`Docs: the figures${BODY}`)).toEqual(['the area "Docs" is not in lower case (one spelling: "docs")']);
    const [p] = commitMessageProblems(`misc: the figures${BODY}`);
    expect(p).toStartWith('the area "misc" is not one of tools/commit-message.ts AREAS (agent, api,');
  });

  test("no area, a full stop, no blank line, no body: each named", () => {
    expect(commitMessageProblems(`Fix the thing${BODY}`)).toEqual(['the subject does not start with "area: " (e.g. "install: ...", "lab, docs: ...")']);
    expect(commitMessageProblems(`disk e2e: the thing${BODY}`)).toEqual(['the subject does not start with "area: " (e.g. "install: ...", "lab, docs: ...")']);
    expect(commitMessageProblems(`disk, Lab: the thing${BODY}`)).toEqual(['the area "Lab" is not in lower case (one spelling: "lab")']);
    expect(commitMessageProblems(`lab: the thing.${BODY}`)).toEqual(["the subject ends with a full stop"]);
    expect(commitMessageProblems("lab: the thing\nbody at once\n")).toEqual([
      "the second line is not blank (subject, blank line, body)",
      "there is no body: say what changed and why, with the figures measured",
    ]);
    expect(commitMessageProblems("lab: the thing\n\n\n")).toEqual(["there is no body: say what changed and why, with the figures measured"]);
    expect(commitMessageProblems("\n")).toEqual(["the subject line is empty"]);
  });

  test("every area is lower case and listed once", () => {
    expect(AREAS.filter((a) => a !== a.toLowerCase())).toEqual([]);
    expect(new Set(AREAS).size).toBe(AREAS.length);
  });
});

describe("the commit-msg hook (make hooks)", () => {
  test("git refuses a commit whose message breaks the rule and takes one that keeps it", async () => {
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { join, resolve } = await import("node:path");
    const dir = await mkdtemp(join(process.env.TMPDIR ?? "/tmp", "commit-msg-"));
    try {
      const git = (...args: string[]) => Bun.spawnSync(["git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.org", ...args], { stderr: "pipe", stdout: "pipe" });
      expect(git("init", "-q").exitCode).toBe(0);
      expect(git("config", "core.hooksPath", resolve(import.meta.dir, "../../.githooks")).exitCode).toBe(0);
      const bad = git("commit", "-q", "--allow-empty", "-m", "Fixed stuff");
      expect(bad.exitCode).not.toBe(0);
      expect(bad.stderr.toString()).toContain('commit-msg: the subject does not start with "area: "');
      const good = git("commit", "-q", "--allow-empty", "-m", "tools: the hook takes this", "-m", "Because it keeps the rule.");
      expect(good.exitCode).toBe(0);
      expect(git("log", "--format=%s").stdout.toString()).toBe("tools: the hook takes this\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
