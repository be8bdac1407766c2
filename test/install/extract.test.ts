import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitWords, StderrTail, tarExtractor, type ExtractFailure } from "../../src/install/extract.ts";
import { tarArchive } from "../helpers/tar-writer.ts";

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

/** A fresh directory for tar to unpack into. */
const scratch = () => mkdtempSync(join(tmpdir(), "mh-extract-"));

/** `plain` packed by Debian's lz4 with `args`. */
function lz4(plain: Uint8Array, args: readonly string[] = []): Buffer {
  const z = spawnSync("lz4", [...args, "-c"], { input: plain, maxBuffer: 256 << 20 });
  expect(z.status).toBe(0);
  return z.stdout;
}

/** The packed stream through the real extractor (liblz4 into GNU tar) in chunks of 64 KiB, as the body arrives. */
async function unpack(packed: Uint8Array, root = scratch()): Promise<{ root: string; writeError: string | undefined; failure: ExtractFailure | undefined }> {
  const ext = tarExtractor()(root);
  let writeError: string | undefined;
  try {
    for (let o = 0; o < packed.byteLength; o += 64 << 10) await ext.write(packed.subarray(o, o + (64 << 10)));
  } catch (e) {
    writeError = (e as Error).message;
  }
  return { root, writeError, failure: await ext.end() };
}

describe("the unpack: liblz4 into GNU tar", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const root = () => {
    const d = scratch();
    dirs.push(d);
    return d;
  };
  /** A file of `n` bytes of a pattern, and its archive. */
  const file = (n: number) => {
    const data = Buffer.alloc(n);
    for (let i = 0; i < n; i++) data[i] = (i * 13) % 241;
    return data;
  };

  test("a tar of exactly 20 MiB packed with lz4 -B7 (five 4 MiB blocks) unpacks whole", async () => {
    // One member of 20 MiB - 1.5 KiB: its header, its data and the end marker make 20 MiB.
    const data = file(20 * 2 ** 20 - 3 * 512);
    const archive = tarArchive([{ name: "big.bin", data }]);
    expect(archive.byteLength).toBe(20 * 2 ** 20);
    const r = await unpack(lz4(archive, ["-B7"]), root());
    expect({ writeError: r.writeError, failure: r.failure }).toEqual({ writeError: undefined, failure: undefined });
    expect(readFileSync(join(r.root, "big.bin")).equals(data)).toBe(true);
  });

  test("data after the end-of-archive marker (a large blocking factor, zeros or junk appended) is decoded and dropped: tar's exit 0 decides", async () => {
    const src = root();
    writeFileSync(join(src, "etc-os-release"), "ID=test\n");
    // GNU tar's own large records: the archive is padded to 4 MiB.
    const blocked = spawnSync("tar", ["-c", "-b", "8192", "-f", "-", "-C", src, "etc-os-release"], { maxBuffer: 64 << 20 }).stdout;
    expect(blocked.byteLength).toBe(4 << 20);
    const small = tarArchive([{ name: "etc-os-release", data: "ID=test\n" }]);
    const cases: Array<[string, Uint8Array]> = [
      ["tar -b 8192", blocked],
      ["3 MiB of zeros appended", Buffer.concat([small, Buffer.alloc(3 << 20)])],
      ["1 MiB of random bytes appended", Buffer.concat([small, file(1 << 20)])],
    ];
    for (const [what, archive] of cases) {
      for (const packed of [lz4(archive), Buffer.concat([lz4(small), lz4(archive.subarray(small.byteLength))])]) {
        const r = await unpack(packed, root());
        expect({ what, writeError: r.writeError, failure: r.failure }).toEqual({ what, writeError: undefined, failure: undefined });
        expect(readFileSync(join(r.root, "etc-os-release"), "utf8")).toBe("ID=test\n");
      }
    }
  });

  test("a bad lz4 frame after tar's end is still the unpack's failure, named", async () => {
    const small = tarArchive([{ name: "f", data: "x" }], Buffer.alloc(3 << 20));
    const trailing = lz4(Buffer.alloc(3 << 20, 1));
    trailing[trailing.byteLength - 1]! ^= 1; // the content checksum
    const r = await unpack(Buffer.concat([lz4(small), trailing]), root());
    expect(r.failure?.exitCode).toBe(0);
    expect(exitWords(r.failure!)).toBe("tar exit 0, the stream after its end marker bad");
    expect(r.failure?.stderr.at(-1)).toMatch(/^lz4: ERROR_contentChecksum_invalid \(at or after compressed byte \d+\)$/);
  });

  test("a tar that fails still fails: its exit and its words", async () => {
    const r = await unpack(lz4(Buffer.concat([Buffer.alloc(512, 0x41), Buffer.alloc(1 << 20)])), root());
    expect(r.failure?.exitCode).toBe(2);
    expect(r.failure?.stderr.join("\n")).toContain("This does not look like a tar archive");
  });
});
