/**
 * The boot-side stand-in as a process on loopback (no root): the partition comes from
 * the source prefix (::1/128 here), files are served whole, every request is logged,
 * a bad configuration stops it with one line naming the field.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../../../lab/base/wait.ts";
import { Proc } from "../../../lab/ipxe/lab-process.ts";
import { parseRequestLog } from "../../../lab/ipxe/boot-request-log.ts";

const work = mkdtempSync(join(tmpdir(), "mhc-bootsrv-"));
const kernel = join(work, "vmlinuz");
const initrd = join(work, "initrd");
const logFile = join(work, "requests.jsonl");
let server: Proc;
let base = "";

const config = (partitions: unknown[]) => ({ listen: { host: "::1", port: 0 }, publicUrl: "http://[::1]:1", partitions });
const part = (name: string, prefix: string) => ({ name, prefix, kernel, initrd, initrdVersion: "v7", metalBootUrl: "http://[::1]:1", cmdline: "console=ttyS0" });

beforeAll(async () => {
  writeFileSync(kernel, new Uint8Array(300_000).fill(7));
  writeFileSync(initrd, new Uint8Array(1_000_001).fill(9));
  writeFileSync(join(work, "ok.json"), JSON.stringify(config([part("loop", "::1/128"), part("other", "2001:db8::/64")])));
  server = new Proc("boot-server", [process.execPath, join(import.meta.dir, "../../../lab/ipxe/boot-server.ts"), join(work, "ok.json"), logFile]);
  const line = await waitFor(
    () => /boot-server listening on (\S+)/.exec(server.text()) ?? (server.exitCode !== null && Promise.reject(new Error(server.text()))),
    10_000,
    "the boot server to listen",
  );
  base = (line[1] as string).replace(/\/$/, "");
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("boot-server.ts", () => {
  test("boot.ipxe for the partition whose prefix holds the source, then its kernel and initrd, all logged in order", async () => {
    const script = await (await fetch(`${base}/boot.ipxe`)).text();
    expect(script).toStartWith("#!ipxe\n");
    expect(script).toContain("METAL_PARTITION=loop ");
    expect(script).toContain("initrd http://[::1]:1/p/loop/initrd-v7.img\n");
    expect((await (await fetch(`${base}/p/loop/vmlinuz`)).arrayBuffer()).byteLength).toBe(300_000);
    expect((await (await fetch(`${base}/p/loop/initrd-v7.img`)).arrayBuffer()).byteLength).toBe(1_000_001);
    expect((await fetch(`${base}/p/loop/initrd-v6.img`)).status).toBe(404);
    expect((await fetch(`${base}/boot.ipxe`, { method: "POST" })).status).toBe(405);
    const log = await waitFor(
      () => {
        const l = parseRequestLog(existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
        return l.length >= 5 ? l : undefined;
      },
      5_000,
      "5 log lines",
    );
    expect(log.map((e) => `${e.status} ${e.method} ${e.path} ${e.bytes} ${e.partition ?? "-"}`)).toEqual([
      `200 GET /boot.ipxe ${Buffer.byteLength(script)} loop`,
      "200 GET /p/loop/vmlinuz 300000 loop",
      "200 GET /p/loop/initrd-v7.img 1000001 loop",
      "404 GET /p/loop/initrd-v6.img 60 -",
      "405 POST /boot.ipxe 19 -",
    ]);
    expect(log.every((e) => e.src === "::1" && e.end >= e.start)).toBe(true);
  });

  test("a bad configuration stops it at once with one line naming the field", () => {
    writeFileSync(join(work, "bad.json"), JSON.stringify(config([part("loop", "10.0.0.0/8")])));
    const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../../lab/ipxe/boot-server.ts"), join(work, "bad.json"), logFile]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.toString()).toContain("boot server config: partitions.0.prefix: expected an IPv6 prefix like 2001:db8:a::/64");
  });

  test("a missing kernel file is named before it listens", () => {
    writeFileSync(join(work, "missing.json"), JSON.stringify(config([{ ...part("loop", "::1/128"), kernel: join(work, "nope") }])));
    const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../../lab/ipxe/boot-server.ts"), join(work, "missing.json"), logFile]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.toString()).toContain(`partitions.loop: ${join(work, "nope")}: no such file`);
  });
});
