/**
 * The image install as a process (`metal-hammer image install`, the flow's installImage:
 * liblz4 into GNU tar) against hostile images served on loopback: each case asserts the
 * exit code, the final line and the agent's peak RSS (VmHWM) under PEAK_RSS_BOUND_KIB
 * (docs/bounds.md). Before the bounds on tar's output, a 470 KB image naming four members
 * of 30 MB each grew the agent to 1.04 GiB in 24 s and ended in one 120 MB error line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startImageServer, type ImageServer } from "../../lab/images/server.ts";
import { tarArchive } from "../helpers/tar-writer.ts";
import { AGENT, PEAK_RSS_BOUND_KIB, lastLine, runMeasured } from "./hostile.ts";

let work: string;
let server: ImageServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mh-bounds-image-"));
  server = await startImageServer(join(work, "cache"));
});
afterAll(async () => {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
});

/** `archive` packed by Debian's lz4 as `<name>/img.tar.lz4` with its .sha256 sidecar; its URL. */
function serveImage(name: string, archive: Uint8Array): string {
  const z = spawnSync("lz4", ["-c"], { input: archive, maxBuffer: 64 << 20 });
  expect(z.status).toBe(0);
  const dir = join(work, "cache", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "img.tar.lz4"), z.stdout);
  writeFileSync(join(dir, "img.tar.lz4.sha256"), `${new Bun.CryptoHasher("sha256").update(z.stdout).digest("hex")}  img.tar.lz4\n`);
  return new URL(`/${name}/img.tar.lz4`, server.url).href;
}

const install = (url: string) =>
  runMeasured([...AGENT, "image", "install", url, "--target", mkdtempSync(join(work, "root-")), "--cmdline", "METAL_BOOT_URL=https://[fd00::1]/ METAL_ALLOW_HTTP=1"], {
    timeoutMs: 60_000,
  });

describe("hostile images", () => {
  test("members with pax names of 30 MB: exit 52 naming tar's reason in a line of a few KB, memory bounded", async () => {
    const names = Array.from({ length: 4 }, (_, i) => ({ name: `d${i}/${"a".repeat(30_000_000)}`, data: "x" }));
    const url = serveImage("huge-names", tarArchive([{ name: "ok", data: "fine\n" }, ...names]));
    const r = await install(url);
    console.log(`huge names: peak RSS ${r.vmHwmKiB} KiB (VmHWM), ${r.ms} ms, exit ${r.code}, stderr ${r.err.length} bytes`);
    expect(r.code).toBe(52);
    const line = lastLine(r.err);
    expect(line).toStartWith(`metal-hammer: image ${url}: sha256 is right but tar/lz4 failed (exit 2): tar: d`);
    expect(line).toContain("aaa: Cannot open: File name too long | ");
    expect(line).toEndWith("tar: Exiting with failure status due to previous errors");
    // Five lines of at most ~2 KB each (line-tail.ts), not the 120 MB of before.
    expect(line.length).toBeLessThan(12_000);
    expect(r.err.length).toBeLessThan(200_000);
    expect(r.vmHwmKiB).toBeGreaterThan(0);
    expect(r.vmHwmKiB).toBeLessThan(PEAK_RSS_BOUND_KIB);
  }, 90_000);
});
