import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePrivateFile } from "../../../src/platform/fs/private-file.ts";

const dir = mkdtempSync(join(tmpdir(), "mha-priv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("private files", () => {
  test("written with mode 0600 in a 0700 directory created on demand", async () => {
    const p = join(dir, "run/metal/token");
    await writePrivateFile(p, "s3cret-token", "token file");
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "run/metal")).mode & 0o777).toBe(0o700);
    expect(readFileSync(p, "utf8")).toBe("s3cret-token");
  });

  test("replacing an existing world-readable file leaves it 0600 and leaves no temp file", async () => {
    const p = join(dir, "h.json");
    writeFileSync(p, "old");
    chmodSync(p, 0o644);
    await writePrivateFile(p, "new", "hand-off file");
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(readFileSync(p, "utf8")).toBe("new");
    expect(readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  test("an unwritable place is a handoff error naming the path", async () => {
    const e = await writePrivateFile("/proc/mha-nope/token", "x", "token file").catch((x) => x);
    expect(e.code).toBe("handoff");
    expect(e.message).toContain("/proc/mha-nope/token");
  });
});

describe("private files: planted names (issue 29)", () => {
  test("the temp name is random: a link at <path>.tmp-<pid> is never followed", async () => {
    const { symlinkSync, existsSync } = await import("node:fs");
    const p = join(dir, "details.yaml");
    const victim = join(dir, "victim");
    symlinkSync(victim, `${p}.tmp-${process.pid}`);
    symlinkSync(victim, `${p}.tmp-1`);
    await writePrivateFile(p, "password: s3cret", "installer contract file");
    expect(existsSync(victim)).toBe(false);
    expect(readFileSync(p, "utf8")).toBe("password: s3cret");
  });

  test("a FIFO at the path is replaced, not opened (no hang)", async () => {
    const { execFileSync } = await import("node:child_process");
    const p = join(dir, "fifo-token");
    execFileSync("mkfifo", [p]);
    await writePrivateFile(p, "x", "token file");
    expect(statSync(p).isFile()).toBe(true);
  });
});
