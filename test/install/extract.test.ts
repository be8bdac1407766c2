import { describe, expect, test } from "bun:test";
import { StderrTail } from "../../src/install/extract.ts";

describe("tar's stderr tail", () => {
  test("lines split across chunks are joined; a last line without a newline counts only at the end", () => {
    const t = new StderrTail();
    t.push("tar: a: Cannot ");
    t.push("open\ntar: b");
    expect(t.lines).toEqual(["tar: a: Cannot open"]);
    t.end();
    expect(t.lines).toEqual(["tar: a: Cannot open", "tar: b"]);
    t.end();
    expect(t.lines).toEqual(["tar: a: Cannot open", "tar: b"]);
  });

  test("only the last 20 complete lines are kept while tar runs", () => {
    const t = new StderrTail();
    t.push(`${Array.from({ length: 25 }, (_, i) => `line ${i}`).join("\n")}\n`);
    expect(t.lines.length).toBe(20);
    expect(t.lines[0]).toBe("line 5");
    expect(t.lines.at(-1)).toBe("line 24");
  });

  test("ENOSPC on any line, complete or the unfinished last one, marks the disk full", () => {
    const early = new StderrTail();
    early.push("tar: ./usr/lib/x: Cannot write: No space left on device\n");
    early.push(`${Array.from({ length: 30 }, () => "tar: later").join("\n")}\n`);
    expect(early.diskFull).toBe(true);
    expect(early.lines.some((l) => l.includes("No space"))).toBe(false);

    const last = new StderrTail();
    last.push("tar: x: Cannot write: no space left on device");
    expect(last.diskFull).toBe(false);
    last.end();
    expect(last.diskFull).toBe(true);
  });

  test("other failures do not mark the disk full", () => {
    const t = new StderrTail();
    t.push("lz4: error: corrupted block\ntar: Unexpected EOF in archive\n");
    t.end();
    expect(t.diskFull).toBe(false);
  });
});

describe("tar's stderr tail, bounded", () => {
  test("a member name of 30 MB is a line of 2 KB: its start and tar's reason at its end; ENOSPC at the end of such a line still marks the disk full", () => {
    const t = new StderrTail();
    const name = `./d/${"n".repeat(30_000_000)}`;
    for (const text of [`tar: ${name}: Cannot open: File name too long\n`, `tar: ${name}: Cannot write: No space left on device\n`])
      for (let i = 0; i < text.length; i += 64 << 10) t.push(text.slice(i, i + (64 << 10)));
    t.end();
    expect(t.lines.length).toBe(2);
    expect(t.lines.every((l) => l.length < 2_100)).toBe(true);
    expect(t.lines[0]).toStartWith("tar: ./d/nnn");
    expect(t.lines[0]).toEndWith("nnn: Cannot open: File name too long");
    expect(t.lines[0]).toContain(" characters cut)... ");
    expect(t.diskFull).toBe(true);
  });
});
