/**
 * Fuzzing the unpack (liblz4 into GNU tar with the agent's own arguments, extract.ts) with
 * archives written byte by byte (test/helpers/tar-writer.ts): long and hostile names (pax
 * paths, `..`, absolute, control characters), chains of symbolic and hard links (to each
 * other, to themselves, out of the root, written through), size fields that lie, data
 * after the end marker. Seed fixed, count bounded (a few seconds). Every case must end
 * within its bound as a success or a failure with tar's exit and capped lines (never a
 * throw, never a hang), and nothing may appear outside the target root. A failing case
 * prints its seed and index to replay it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tarExtractor, type ExtractFailure } from "../../src/install/extract.ts";
import { LINE_HEAD, LINE_TAIL } from "../../src/install/line-tail.ts";
import { tarArchive, type TarEntry } from "../helpers/tar-writer.ts";
import { int, pick, rng, tally, type R } from "./seeded.ts";

const SEED = 0x746172; // "tar"
const COUNT = Number(process.env.TAR_FUZZ_COUNT ?? 100);
/** One case: tar on a few KiB to a few MiB ends in well under this. */
const CASE_BOUND_MS = 15_000;

let work: string;
/** A sibling of every target root: hostile names and links aim here; it must stay empty. */
let outside: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "mh-tar-fuzz-"));
  outside = join(work, "outside");
  mkdirSync(outside);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function name(r: R, others: readonly string[]): string {
  switch (int(r, 12)) {
    case 0:
      return `d${int(r, 3)}/${"n".repeat(100 + int(r, 5_000))}`; // a pax path
    case 1:
      return `${"deep/".repeat(1 + int(r, 200))}f`;
    case 2:
      return "../outside/escaped";
    case 3:
      return pick(r, ["a/../../outside/up", "./../outside/dot", "ok/../../../outside/x"]);
    case 4:
      return `${outside}/absolute`;
    case 5:
      return pick(r, ["nl\nname", "esc\u001b[2Jname", "bidi\u202ename", "ü😀", "", ".", "./", "/", "x/"]);
    case 6:
      return others.length > 0 ? `${pick(r, others)}/through` : "plain";
    case 7:
      return "x".repeat(30_000 + int(r, 300_000)); // a long name, one component
    default:
      return pick(r, ["a", "b/c", "d/e/f", "link", "l0", "l1", "l2", "dir", "dir/file"]);
  }
}

function target(r: R, names: readonly string[]): string {
  return pick(r, [outside, "../outside", "../../outside", `${outside}/absolute`, ...names.slice(-3), "l0", "l1", "self", "/etc/passwd", "/proc/self/root", "a".repeat(5_000)]);
}

/** One archive of 1-12 entries: files, directories, symlinks, hard links, chains of links. */
function archive(r: R): Uint8Array {
  const entries: TarEntry[] = [];
  const names: string[] = [];
  for (let k = 1 + int(r, 12); k > 0; k--) {
    const n = name(r, names);
    const kind = int(r, 6);
    const data = kind <= 1 ? Buffer.alloc(int(r, 3) === 0 ? int(r, 70_000) : int(r, 600), 0x61 + int(r, 26)) : undefined;
    const e: TarEntry =
      kind <= 1
        ? {
            name: n,
            data: data!,
            ...(int(r, 6) === 0 ? { sizeField: Math.max(0, data!.byteLength + pick(r, [-512, -1, 1, 512, 1 << 20, 0o77777777777 - data!.byteLength])) } : {}),
          }
        : kind === 2
          ? { name: n, type: "5" }
          : kind <= 4
            ? { name: n, type: "2", linkname: target(r, names) }
            : { name: n, type: "1", linkname: target(r, names) };
    entries.push(e);
    names.push(n);
  }
  if (int(r, 4) === 0) {
    // A chain: l0 -> l1 -> ... -> out of the root, then a file written through its start.
    const len = 1 + int(r, 8);
    for (let i = 0; i < len; i++) entries.push({ name: `c${i}`, type: "2", linkname: i === len - 1 ? pick(r, [outside, "../outside", "c0"]) : `c${i + 1}` });
    entries.push({ name: "c0/through-chain", data: "x" });
  }
  const trailing = pick(r, [0, 0, 512, 200_000, 1 << 20]);
  return tarArchive(entries, int(r, 2) === 0 ? Buffer.alloc(trailing) : Buffer.alloc(trailing, 0x5a));
}

async function unpack(packed: Uint8Array, root: string): Promise<ExtractFailure | undefined> {
  const ext = tarExtractor()(root);
  try {
    for (let at = 0; at < packed.byteLength; at += 64 << 10) await ext.write(packed.subarray(at, at + (64 << 10)));
  } catch {
    // tar ended or the stream was bad: end() says how
  }
  return await ext.end();
}

describe(`tar fuzz (seed ${SEED}, ${COUNT} cases)`, () => {
  test("hostile names, link chains, lying sizes, data after the end: success or tar's failure in capped lines, within the bound, nothing outside the root", async () => {
    const r = rng(SEED);
    const kinds: string[] = [];
    const t0 = performance.now();
    for (let i = 0; i < COUNT; i++) {
      const z = spawnSync("lz4", ["-c"], { input: archive(r), maxBuffer: 64 << 20 });
      expect(z.status).toBe(0);
      const root = mkdtempSync(join(work, "root-"));
      const started = performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), CASE_BOUND_MS)));
      const result = await Promise.race([unpack(z.stdout, root), hung]);
      clearTimeout(timer);
      const what = `seed ${SEED} case ${i}`;
      if (result === "hung") throw new Error(`${what}: the unpack did not end within ${CASE_BOUND_MS} ms`);
      if (result !== undefined) {
        expect({ what, stderr: result.stderr.length <= 21 }).toEqual({ what, stderr: true });
        for (const l of result.stderr) if (l.length > LINE_HEAD + LINE_TAIL + 60) throw new Error(`${what}: a line of ${l.length} characters`);
        kinds.push(result.exitCode === null ? "stopped" : `exit ${result.exitCode}`);
      } else kinds.push("ok");
      const escaped = readdirSync(outside);
      if (escaped.length > 0) throw new Error(`${what}: ${escaped.join(", ")} written outside the root (${Math.round(performance.now() - started)} ms)`);
      rmSync(root, { recursive: true, force: true });
    }
    const t = tally(kinds);
    console.log(`tar fuzz: ${JSON.stringify(t)} in ${Math.round(performance.now() - t0)} ms`);
    expect((t.ok ?? 0) > 0 && (t["exit 2"] ?? 0) > 0).toBe(true);
  }, 120_000);
});
