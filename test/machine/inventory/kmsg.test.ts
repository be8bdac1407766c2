import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { KMSG_PATH, scanKmsg, searchKmsg, type KmsgRead } from "../../../src/machine/inventory/kmsg.ts";
import { parseKernelMemoryLine } from "../../../src/machine/inventory/kernel-memory-line.ts";
import { prerequisites } from "../../helpers/prerequisites.ts";
import { isRoot } from "../../helpers/netns.ts";

/** A scripted /dev/kmsg: each step is a record's text or what read(2) said instead. */
function device(steps: (string | Exclude<KmsgRead, number>)[]) {
  let i = 0;
  const calls = { n: 0 };
  const read = (buf: Uint8Array): KmsgRead => {
    calls.n++;
    const s = steps[i++];
    if (s === undefined) return "again";
    if (s === "again" || s === "lost" || s === "interrupted") return s;
    const b = new TextEncoder().encode(s);
    buf.set(b);
    return b.byteLength;
  };
  return { read, calls };
}

const memoryLine = (r: { message: string }) => parseKernelMemoryLine(r.message);

describe("scanKmsg: one record per read, to the match, the end (EAGAIN) or a bound", () => {
  test("stops at the first record that matches; the records before are counted", () => {
    const d = device(["5,0,0,-;Linux version 6.1.0\n", "6,1,0,-;Command line: x\n", "6,2,10,-;Memory: 5K/8K available\n", "6,3,11,-;Memory: 6K/9K available\n"]);
    const scan = scanKmsg(d.read, memoryLine);
    expect(scan).toMatchObject({ found: { availableKiB: 5, totalKiB: 8 }, records: 3, lost: 0, firstSeq: 0, end: "found" });
    expect(d.calls.n).toBe(3);
  });

  test("EAGAIN ends the search (the log's end, nothing waited for); EPIPE and EINTR do not", () => {
    const d = device(["6,40,0,-;a\n", "lost", "interrupted", "6,45,0,-;b\n", "again", "6,46,0,-;Memory: 1K/2K\n"]);
    expect(scanKmsg(d.read, memoryLine)).toMatchObject({ found: undefined, records: 2, lost: 1, firstSeq: 40, end: "end" });
  });

  test("a flood that never reaches EAGAIN ends at the read bound, a large one at the byte bound", () => {
    const flood = () => device(Array.from({ length: 100 }, (_, i) => `6,${i},0,-;${"x".repeat(99)}\n`));
    const byReads = flood();
    expect(scanKmsg(byReads.read, memoryLine, { reads: 10, bytes: 1 << 20 })).toMatchObject({ records: 10, end: "reads" });
    expect(byReads.calls.n).toBe(10);
    const lossy = device(Array.from({ length: 100 }, () => "lost" as const));
    expect(scanKmsg(lossy.read, memoryLine, { reads: 10, bytes: 1 << 20 })).toMatchObject({ records: 0, lost: 10, end: "reads" });
    const byBytes = flood();
    const scan = scanKmsg(byBytes.read, memoryLine, { reads: 1000, bytes: 1000 });
    expect(scan.end).toBe("bytes");
    expect(scan.bytes).toBeGreaterThanOrEqual(1000);
    expect(scan.records).toBeLessThan(100);
  });

  test("text that is not a record is read past", () => {
    expect(scanKmsg(device(["garbage", "6,7,0,-;Memory: 3K/4K\n"]).read, memoryLine)).toMatchObject({ found: { totalKiB: 4 }, records: 2, firstSeq: 7 });
  });
});

const ready = prerequisites("searchKmsg on this machine's /dev/kmsg", [!isRoot && "root (CAP_SYSLOG)", !existsSync(KMSG_PATH) && KMSG_PATH]);

describe.if(ready)("searchKmsg on the real /dev/kmsg", () => {
  test("reads the whole log to EAGAIN without blocking (a blocking read would wait for the next message)", () => {
    const t0 = performance.now();
    const scan = searchKmsg(() => undefined);
    expect(scan.end).toBe("end");
    expect(scan.records).toBeGreaterThan(0);
    expect(scan.firstSeq).toBeGreaterThanOrEqual(0);
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  test("a match ends the search at that record", () => {
    const all = searchKmsg(() => undefined);
    const second = searchKmsg((r) => (r.seq > (all.firstSeq ?? 0) ? r.seq : undefined));
    expect(second).toMatchObject({ end: "found", records: 2 });
  });

  test("a path that is not there is the fs error", () => {
    expect(() => searchKmsg(() => undefined, "/nonexistent-mh/kmsg")).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
