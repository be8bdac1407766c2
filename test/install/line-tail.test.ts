import { describe, expect, test } from "bun:test";
import { LINE_HEAD, LINE_TAIL, LineTail } from "../../src/install/line-tail.ts";

/** `text` pushed in chunks of `size` characters. */
function pushed(t: LineTail, text: string, size: number): LineTail {
  for (let i = 0; i < text.length; i += size) t.push(text.slice(i, i + size));
  return t;
}

describe("the last lines of a program's output, bounded", () => {
  test("short lines are kept whole, split across chunks or not; the last `keep` of them", () => {
    const t = pushed(new LineTail(3), "one\ntwo\nthree\nfour\nfi", 2);
    expect(t.lines).toEqual(["two", "three", "four"]);
    t.end();
    expect(t.lines).toEqual(["three", "four", "fi"]);
    expect(t.count).toBe(5);
  });

  test("a line of 30 MB in 64 KiB chunks: its start and its end (tar's reason) are kept, 2 KB in all, quickly", () => {
    const name = `tar: d0/${"a".repeat(30_000_000)}`;
    const reason = ": Cannot open: File name too long";
    const seen: string[] = [];
    const t0 = performance.now();
    const t = pushed(new LineTail(20, (l) => seen.push(l)), `${name}${reason}\ntar: Exiting with failure status due to previous errors\n`, 64 << 10);
    const ms = performance.now() - t0;
    const cut = name.length + reason.length - LINE_HEAD - LINE_TAIL;
    expect(t.lines[0]).toBe(`${name.slice(0, LINE_HEAD)} ...(${cut} characters cut)... ${"a".repeat(LINE_TAIL - reason.length)}${reason}`);
    expect(t.lines[0]!.length).toBeLessThan(LINE_HEAD + LINE_TAIL + 50);
    expect(t.lines[1]).toBe("tar: Exiting with failure status due to previous errors");
    expect(seen).toEqual(t.lines);
    // Each chunk is scanned once: before, every chunk re-split the whole partial line (58 s
    // for a tar of such names in the agent); linear work is a few ms here.
    expect(ms).toBeLessThan(2_000);
  });

  test("an unfinished line that never ends is capped while it grows and counted at the end", () => {
    const t = new LineTail(20);
    for (let i = 0; i < 1000; i++) t.push("b".repeat(10_000));
    t.end();
    expect(t.lines).toEqual([`${"b".repeat(LINE_HEAD)} ...(${10_000_000 - LINE_HEAD - LINE_TAIL} characters cut)... ${"b".repeat(LINE_TAIL)}`]);
  });

  test("a line just over the head keeps every character, without a cut marker", () => {
    const line = "x".repeat(LINE_HEAD + LINE_TAIL);
    expect(pushed(new LineTail(1), `${line}\n`, 7).lines).toEqual([line]);
    const longer = `${line}y`;
    expect(pushed(new LineTail(1), `${longer}\n`, 7).lines).toEqual([`${"x".repeat(LINE_HEAD)} ...(1 characters cut)... ${"x".repeat(LINE_TAIL - 1)}y`]);
  });
});
