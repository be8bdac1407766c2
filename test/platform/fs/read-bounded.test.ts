import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { READ_CAPS, TooLargeError, readBounded, readBoundedSync, readBoundedText } from "../../../src/platform/fs/read-bounded.ts";
import { runCli } from "../../../src/cli/program.ts";
import { createContext, processIo } from "../../../src/platform/io/context.ts";

const dir = mkdtempSync(join(tmpdir(), "read-bounded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: number): string {
  const p = join(dir, name);
  writeFileSync(p, Buffer.alloc(bytes, 0x61));
  return p;
}

/** Runs the CLI in-process with the real process Io (real files), capturing what it prints. */
async function cli(args: string[]): Promise<{ code: number; err: string }> {
  let err = "";
  const io = { ...processIo(), out: () => {}, err: (t: string) => void (err += t) };
  return { code: await runCli(args, createContext(io)), err };
}

describe("readBounded", () => {
  test("a file of exactly the cap is read whole, one byte more is TooLargeError naming file and cap", async () => {
    const at = file("at-cap", 1000);
    const over = file("over-cap", 1001);
    expect((await readBounded(at, 1000)).byteLength).toBe(1000);
    expect(readBoundedSync(at, 1000).byteLength).toBe(1000);
    const e = await readBounded(over, 1000).catch((x) => x);
    expect(e).toBeInstanceOf(TooLargeError);
    expect(e.message).toBe(`${over} is larger than the cap of 1000 bytes (see docs/bounds.md)`);
    expect(() => readBoundedSync(over, 1000)).toThrow(`${over} is larger than the cap of 1000 bytes`);
  });

  test("an endless device (/dev/zero) stops at the cap instead of filling memory", async () => {
    const e = await readBounded("/dev/zero", "cmdline").catch((x) => x);
    expect(e).toBeInstanceOf(TooLargeError);
    expect(e.message).toBe("/dev/zero is larger than the cap of 8 MiB (8388608 bytes) (see docs/bounds.md)");
    expect(() => readBoundedSync("/dev/zero", "sysfs")).toThrow("/dev/zero is larger than the cap of 4 MiB");
  });

  test("procfs files that report size 0 are read whole", async () => {
    const text = await readBoundedText("/proc/self/status", "sysfs");
    expect(text).toContain("VmHWM:");
  });

  test("a missing file is the fs error (callers say what the file was for)", async () => {
    const e = await readBounded(join(dir, "missing"), 10).catch((x) => x);
    expect(e.code).toBe("ENOENT");
  });
});

describe("files given on the command line are capped", () => {
  test("config --file /dev/zero: exit 2 naming the file and the cap", async () => {
    const r = await cli(["config", "--file", "/dev/zero"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`metal-hammer: cannot read the kernel cmdline from /dev/zero: /dev/zero is larger than the cap of 8 MiB (8388608 bytes) (see docs/bounds.md)\n`);
  });

  test("run --file /dev/zero: exit 2 before anything else happens", async () => {
    const r = await cli(["run", "--file", "/dev/zero"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("/dev/zero is larger than the cap of 8 MiB");
  });

  test("net status --resolv-conf /dev/zero: exit 2 naming the file and the cap (a missing one is still 'no DNS')", async () => {
    const r = await cli(["net", "status", "--resolv-conf", "/dev/zero", "--json"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("metal-hammer: --resolv-conf: /dev/zero is larger than the cap of 16 MiB (16777216 bytes) (see docs/bounds.md)\n");
    expect((await cli(["net", "status", "--resolv-conf", join(dir, "none"), "--json"])).code).toBe(0);
  });

  test("kconfig check --config and --modules /dev/zero: exit 41 naming the file and the cap", async () => {
    const c = await cli(["kconfig", "check", "--config", "/dev/zero"]);
    expect(c.code).toBe(41);
    expect(c.err).toContain(`cannot read the kernel config /dev/zero: /dev/zero is larger than the cap of ${READ_CAPS.textFile / 1024 / 1024} MiB`);
    const cfg = file("dot-config", 0);
    writeFileSync(cfg, "CONFIG_NET=y\n");
    const m = await cli(["kconfig", "check", "--config", cfg, "--modules", "/dev/zero"]);
    expect(m.code).toBe(41);
    expect(m.err).toContain("cannot read the module list /dev/zero: /dev/zero is larger than the cap of 16 MiB");
  });
});
