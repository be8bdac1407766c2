/**
 * The streaming image install against the image cache stand-in on loopback: a real
 * liblz4 + GNU tar unpacking onto a directory (onto a small tmpfs for disk-full). Faults,
 * each a test: a cut (resumed with Range), a server without Range (restart), a
 * corrupted byte (retried once, then image_checksum), a stall (detected within the
 * bound), disk full (fatal at once). Fidelity: modes, owners, hard links, symlinks,
 * xattrs on the extracted tree. Root: tar restores owners and the tmpfs is mounted.
 * The guards' timers (stall, unpack bound, deadline) run on a fake clock the tests
 * advance once the bytes they wait for have arrived: no test waits real seconds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentError } from "../../../src/platform/errors.ts";
import { HttpClient } from "../../../src/clients/http/http-client.ts";
import type { ExtractorFactory } from "../../../src/install/extract.ts";
import { installImage, type ImageEnv } from "../../../src/install/image.ts";
import { realTimers } from "../../../src/platform/io/timers.ts";
import { createLogger, silentLogger } from "../../../src/platform/log/logger.ts";
import { capturingLogger } from "../../helpers/log-capture.ts";
import { SecretSet } from "../../../src/platform/log/redact.ts";
import { buildTestImage, type TestImage } from "../../../lab/images/build.ts";
import { startImageServer, type ImageServer } from "../../../lab/images/server.ts";
import { waitFor } from "../../../lab/base/wait.ts";
import { fakeTimers, type FakeTimers } from "../../helpers/fake-timers.ts";
import { tarArchive } from "../../helpers/tar-writer.ts";

const tools = ["tar", "lz4", "setfattr", "getfattr", "mount", "umount"].filter((t) => Bun.which(t) === null);
const ready = process.getuid?.() === 0 && tools.length === 0 && existsSync("/bin/busybox");
const why = `needs root and ${["tar", "lz4", "setfattr (attr)", "busybox"].join(", ")} (missing: ${tools.join(", ") || "root"})`;

if (!ready && process.env.CI === "true") {
  test("install integration prerequisites", () => {
    throw new Error(`install integration tests cannot run under CI: ${why}`);
  });
}

describe.skipIf(!ready)(`streaming image install${ready ? "" : ` (skipped: ${why})`}`, () => {
  let work: string;
  let img: TestImage;
  let server: ImageServer;
  const http = new HttpClient({ caBundle: "/nonexistent", allowHttp: true, log: silentLogger() });
  const noWait: ImageEnv = { now: () => performance.now(), after: realTimers.after, random: () => 0, sleep: async () => {} };
  /** Fake time for the guards: they fire when the test advances it (backoff waits advance it too). */
  const fakeEnv = (): { time: FakeTimers; env: ImageEnv } => {
    const time = fakeTimers();
    return { time, env: { ...time, random: () => 0 } };
  };
  /** The byte count of the last progress line (progressMs 0: one line per chunk). */
  const bytesSeen = (log: ReturnType<typeof capturingLogger>): number => Number(log.events("install.image.progress").at(-1)?.bytes ?? 0);
  const reasons = (log: ReturnType<typeof capturingLogger>): unknown[] => log.events("install.image.resume").map((e) => e.reason);
  const path = "/debian/12/img.tar.lz4";

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "mh-install-"));
    // 4 MiB of incompressible padding: cut and stall points are well inside the body.
    img = buildTestImage(join(work, "cache/debian/12"), { padMib: 4 });
    server = await startImageServer(join(work, "cache"));
  });
  afterAll(async () => {
    await server.stop();
    await http.close();
    spawnSync("umount", [join(work, "small")]);
    rmSync(work, { recursive: true, force: true });
  });

  const target = () => {
    const t = mkdtempSync(join(work, "root-"));
    return t;
  };
  const url = () => new URL(path, server.url);

  test("the image lands on the target with modes, owners, hard links, symlinks and xattrs; sha256 wins over md5", async () => {
    const root = target();
    server.requests.length = 0;
    const r = await installImage({ http, url: url(), root, log: silentLogger(), env: noWait });
    expect(r.checksum).toEqual({ algo: "sha256", hex: img.sha256 });
    expect(r.bytes).toBe(img.bytes);
    expect(r.passes).toBe(1);
    expect(server.requests.filter((q) => q.path === path).length).toBe(1);
    expect(statSync(join(root, "data/setuid")).mode & 0o7777).toBe(0o4755);
    expect(statSync(join(root, "tmp")).mode & 0o7777).toBe(0o1777);
    const secret = statSync(join(root, "data/secret"));
    expect([secret.uid, secret.gid, secret.mode & 0o777]).toEqual([1234, 5678, 0o600]);
    expect(statSync(join(root, "data/hardlink")).ino).toBe(statSync(join(root, "data/setuid")).ino);
    expect(statSync(join(root, "data/setuid")).nlink).toBe(2);
    expect(lstatSync(join(root, "data/abs-link")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(root, "data/abs-link"))).toBe("/etc/os-release");
    expect(readlinkSync(join(root, "data/rel-link"))).toBe("../etc/os-release");
    const xa = spawnSync("getfattr", ["-d", "-m", "-", "-e", "base64", join(root, "data/xattr"), join(root, "data/setuid")], { encoding: "utf8" }).stdout;
    expect(xa).toContain("user.metal=0saGFtbWVy");
    expect(xa).toContain("security.capability=0sAQAAAgAgAAAAAAAAAAAAAAAAAAA=");
    expect(readFileSync(join(root, "install.sh"), "utf8")).toContain("boot-info.yaml");
  });

  test("a cut halfway is resumed with Range and the checksum is still right", async () => {
    const root = target();
    server.requests.length = 0;
    server.faults = [{ path, kind: "cut", at: Math.floor(img.bytes / 2), times: 1 }];
    const r = await installImage({ http, url: url(), root, log: silentLogger(), env: noWait });
    expect(r.resumes).toBe(1);
    expect(r.restarts).toBe(0);
    const gets = server.requests.filter((q) => q.path === path);
    expect(gets.length).toBe(2);
    expect(gets[1]!.range).toMatch(/^bytes=\d+-$/);
    expect(gets[1]!.status).toBe(206);
    expect(Number(gets[1]!.range!.slice(6, -1))).toBeGreaterThan(0);
    expect(statSync(join(root, "data/pad.bin")).size).toBe(4 << 20);
  });

  test("a server without Range support: the download starts again from byte 0 on a cleaned target", async () => {
    const root = target();
    writeFileSync(join(root, "stale-file"), "from an earlier attempt");
    server.requests.length = 0;
    server.ranges = false;
    server.faults = [{ path, kind: "cut", at: Math.floor(img.bytes / 2), times: 1 }];
    try {
      const r = await installImage({ http, url: url(), root, log: silentLogger(), env: noWait });
      expect(r.restarts).toBe(1);
      expect(r.bytes).toBe(img.bytes);
      expect(existsSync(join(root, "stale-file"))).toBe(false);
      expect(existsSync(join(root, "install.sh"))).toBe(true);
    } finally {
      server.ranges = true;
    }
  });

  test("a corrupted byte is retried once from scratch and succeeds", async () => {
    const root = target();
    server.requests.length = 0;
    server.faults = [{ path, kind: "corrupt", at: Math.floor(img.bytes / 3), times: 1 }];
    const r = await installImage({ http, url: url(), root, log: silentLogger(), env: noWait });
    expect(r.passes).toBe(2);
    expect(server.requests.filter((q) => q.path === path).length).toBe(2);
  });

  test("a byte corrupted on every download ends with image_checksum (exit 51) after exactly two passes", async () => {
    const root = target();
    server.requests.length = 0;
    server.faults = [{ path, kind: "corrupt", at: Math.floor(img.bytes / 3), times: 5 }];
    const e = await installImage({ http, url: url(), root, log: silentLogger(), env: noWait }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).code).toBe("image_checksum");
    expect((e as AgentError).exitCode).toBe(51);
    expect((e as AgentError).message).toContain(img.sha256);
    expect(server.requests.filter((q) => q.path === path).length).toBe(2);
    server.faults = [];
  });

  test("a stall (no byte) is detected at the bound and resumed", async () => {
    const root = target();
    server.requests.length = 0;
    const at = Math.floor(img.bytes / 2);
    server.faults = [{ path, kind: "stall", at, times: 1 }];
    const { time, env } = fakeEnv();
    const log = capturingLogger();
    const run = installImage({ http, url: url(), root, log: log.log, env, stallMs: 1_000, progressMs: 0 });
    await waitFor(() => bytesSeen(log) >= at, 10_000, `the ${at} bytes before the stall`, 5);
    // Checked every 250 ms: silent for 999 ms is no stall, 1 s is.
    time.advance(999);
    expect(reasons(log)).toEqual([]);
    time.advance(1);
    const r = await run;
    expect(r.resumes).toBe(1);
    expect(reasons(log)).toEqual(["no byte for 1 s (stall)"]);
    expect(server.requests.filter((q) => q.path === path).map((q) => q.status)).toEqual([200, 206]);
  });

  test("a body trickling in (one byte every 100 ms) is too slow: broken off after one window under the minimum and resumed", async () => {
    const root = target();
    server.requests.length = 0;
    server.faults = [{ path, kind: "trickle", at: Math.floor(img.bytes / 2), times: 1 }];
    const { time, env } = fakeEnv();
    const log = capturingLogger();
    const run = installImage({ http, url: url(), root, log: log.log, env, stallMs: 1_000, minBytesPerStall: 1024, progressMs: 0 });
    await waitFor(() => bytesSeen(log) >= Math.floor(img.bytes / 2), 10_000, "the bytes before the trickle", 5);
    // 250 ms of fake time per trickled byte: never silent for the stall bound. The fast
    // first half fills the first window (0-1 s); the second (1-2 s) gets a few bytes.
    while (reasons(log).length === 0) {
      const seen = bytesSeen(log);
      await waitFor(() => bytesSeen(log) > seen, 5_000, "the next trickled byte", 5);
      time.advance(250);
    }
    const r = await run;
    expect(r.resumes).toBe(1);
    expect(server.requests.filter((q) => q.path === path).map((q) => q.status)).toEqual([200, 206]);
    expect(String(reasons(log)[0])).toMatch(/^\d+ bytes in 1 s, under 1024 per 1 s \(too slow\)$/);
    expect(reasons(log).length).toBe(1);
  });

  test("a slow disk (tar's pipe full for longer than the stall bound) is not a stall", async () => {
    server.requests.length = 0;
    let writes = 0;
    const { time, env } = fakeEnv();
    const slow: ExtractorFactory = () => ({
      write: async () => {
        // The first writes each take 3x the stall bound (of the fake clock), as a disk stuck in a flush would.
        if (++writes <= 3) time.advance(900);
      },
      end: async () => undefined,
      abort: async () => {},
      failure: () => undefined,
      diskFull: () => false,
      tarFinished: () => false,
    });
    const r = await installImage({ http, url: url(), root: target(), log: silentLogger(), env, stallMs: 300, extractor: slow });
    expect(time.now()).toBe(2_700);
    expect(r.resumes).toBe(0);
    expect(r.restarts).toBe(0);
    expect(writes).toBeGreaterThan(3);
    expect(server.requests.filter((q) => q.path === path).length).toBe(1);
  });

  test("a disk that takes no data (tar's pipe full past the unpack bound) or a tar that does not exit: image_unpack (52) at the bound, tar aborted, no retry", async () => {
    for (const hangOn of ["write", "end"] as const) {
      server.requests.length = 0;
      let aborted = 0;
      const { time, env } = fakeEnv();
      // The call that hangs lets the fake clock run to the unpack bound once the agent awaits it.
      const hang = <T>(): Promise<T> => (queueMicrotask(() => time.advance(600)), new Promise<T>(() => {}));
      const hung: ExtractorFactory = () => ({
        write: () => (hangOn === "write" ? hang<void>() : Promise.resolve()),
        end: () => (hangOn === "end" ? hang<undefined>() : Promise.resolve(undefined)),
        abort: async () => void aborted++,
        failure: () => undefined,
        diskFull: () => false,
        tarFinished: () => false,
      });
      const e = await installImage({ http, url: url(), root: target(), log: silentLogger(), env, stallMs: 200, unpackStallMs: 600, extractor: hung }).catch((x: unknown) => x);
      expect((e as AgentError).code).toBe("image_unpack");
      expect((e as AgentError).exitCode).toBe(52);
      expect((e as AgentError).message).toContain(hangOn === "write" ? "tar/lz4 took no data for 1 s" : "tar/lz4 did not finish for 1 s");
      expect(time.now()).toBe(600);
      expect(aborted).toBeGreaterThan(0);
      expect(server.requests.filter((q) => q.path === path).length).toBe(1);
    }
  });

  test("a body that breaks on every attempt ends with image_download once the retry bound is used up", async () => {
    const root = target();
    server.requests.length = 0;
    server.faults = [{ path, kind: "cut", at: Math.floor(img.bytes / 2), times: 100 }];
    const e = await installImage({ http, url: url(), root, log: silentLogger(), env: noWait, retry: { attempts: 3, baseMs: 10, capMs: 100, totalMs: 60_000 } }).catch(
      (x: unknown) => x,
    );
    server.faults = [];
    expect((e as AgentError).code).toBe("image_download");
    expect((e as AgentError).message).toContain("broke off 3 time(s) in a row without getting past byte");
    // One GET per break. Usually three: the first gets to the cut, the next two get no
    // further. At a reset Bun's fetch may drop what it still buffered, so the next resume can
    // get a few bytes further (up to the cut), which starts the count again.
    const breaks = Number(/\((\d+) breaks in all\)/.exec((e as AgentError).message)?.[1]);
    expect(breaks).toBeGreaterThanOrEqual(3);
    expect(server.requests.filter((q) => q.path === path).length).toBe(breaks);
  });

  test("a cache that cuts every connection further into the image costs time, not the install: more breaks than the bound, each with new bytes", async () => {
    const root = target();
    server.requests.length = 0;
    // Five connections in a row, each cut 2 MiB further in: more than the 3 attempts the
    // bound allows in a row.
    buildTestImage(join(work, "cache/debian/13"), { padMib: 12 });
    const bigPath = "/debian/13/img.tar.lz4";
    const step = 2 << 20;
    server.faults = Array.from({ length: 5 }, (_, i) => ({ path: bigPath, kind: "cut" as const, at: (i + 1) * step, times: 1 }));
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: "info", format: "json", secrets: new SecretSet(), write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const r = await installImage({ http, url: new URL(bigPath, server.url), root, log, env: noWait, retry: { attempts: 3, baseMs: 10, capMs: 100, totalMs: 60_000 } });
    server.faults = [];
    expect([r.resumes, r.restarts]).toEqual([5, 0]);
    expect(server.requests.filter((q) => q.path === bigPath).map((q) => q.status)).toEqual([200, 206, 206, 206, 206, 206]);
    expect(statSync(join(root, "data/pad.bin")).size).toBe(12 << 20);
    const resumes = lines.filter((l) => l.event === "install.image.resume");
    // Each break got further than the one before, so each starts the count (and the backoff) again.
    expect(resumes.map((l) => [l.attempt, l.breaks])).toEqual([1, 2, 3, 4, 5].map((n) => [1, n]));
  });

  test("a server that ignores Range and cuts at the same byte every time is bounded: restarts from 0 that get no further count", async () => {
    const root = target();
    server.requests.length = 0;
    server.ranges = false;
    const at = Math.floor(img.bytes / 2);
    server.faults = [{ path, kind: "cut", at, times: 100 }];
    const e = await installImage({ http, url: url(), root, log: silentLogger(), env: noWait, retry: { attempts: 3, baseMs: 10, capMs: 100, totalMs: 60_000 } }).catch(
      (x: unknown) => x,
    );
    server.faults = [];
    server.ranges = true;
    expect((e as AgentError).code).toBe("image_download");
    const m = /broke off 3 time\(s\) in a row without getting past byte (\d+) of \d+ \((\d+) breaks in all\)/.exec((e as AgentError).message);
    expect(m).not.toBeNull();
    // Never past the cut; after each break the Range GET is answered 200 and dropped, and
    // the download starts again from byte 0 (a restart that gets a few bytes further than
    // the last, see above, starts the count again).
    expect(Number(m![1])).toBeLessThanOrEqual(at);
    const breaks = Number(m![2]);
    expect(breaks).toBeGreaterThanOrEqual(3);
    const gets = server.requests.filter((q) => q.path === path);
    expect(gets.map((q) => [q.range === null ? "from 0" : "Range", q.status])).toEqual(Array.from({ length: 2 * breaks - 1 }, (_, i) => [i % 2 === 0 ? "from 0" : "Range", 200]));
  });

  test("progress lines carry bytes, total, percent, rate; the last one is 100%", async () => {
    const root = target();
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: "info", format: "json", secrets: new SecretSet(), write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    await installImage({ http, url: url(), root, log, env: noWait, progressMs: 0 });
    const progress = lines.filter((l) => l.event === "install.image.progress");
    expect(progress.length).toBeGreaterThan(1);
    const last = progress.at(-1)!;
    expect([last.bytes, last.total, last.percent]).toEqual([img.bytes, img.bytes, 100]);
    expect(typeof last.rate).toBe("number");
    expect(String(last.msg)).toMatch(/^image: [\d.]+ MiB of [\d.]+ MiB \(100%\) at [\d.]+ MiB\/s/);
    expect(lines.map((l) => l.event)).toEqual(expect.arrayContaining(["install.image.checksum", "install.image.start", "install.image.done"]));
  });

  /** An image in cache/<name>/ that is no tar.lz4, with the right .sha256 sidecar. */
  const junkImage = (name: string): Buffer => {
    const dir = join(work, "cache", name);
    mkdirSync(dir, { recursive: true });
    const junk = Buffer.from("this is not an lz4 frame\n".repeat(1000));
    writeFileSync(join(dir, "img.tar.lz4"), junk);
    writeFileSync(join(dir, "img.tar.lz4.sha256"), `${new Bun.CryptoHasher("sha256").update(junk).digest("hex")}  img.tar.lz4\n`);
    return junk;
  };

  /** `packed` served as cache/<name>/img.tar.lz4 with its .sha256 sidecar; its URL. */
  const servedImage = (name: string, packed: Uint8Array): URL => {
    const dir = join(work, "cache", name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "img.tar.lz4"), packed);
    writeFileSync(join(dir, "img.tar.lz4.sha256"), `${new Bun.CryptoHasher("sha256").update(packed).digest("hex")}  img.tar.lz4\n`);
    return new URL(`/${name}/img.tar.lz4`, server.url);
  };
  const lz4 = (plain: Uint8Array): Buffer => spawnSync("lz4", ["-c"], { input: plain, maxBuffer: 64 << 20 }).stdout;

  test("an image whose tar has data after its end marker (tar -b 8192; zeros appended) installs: tar's exit 0 and the hash decide", async () => {
    const src = mkdtempSync(join(work, "src-"));
    writeFileSync(join(src, "os-release"), "ID=trailing\n");
    // GNU tar's own large records (4 MiB, the archive padded to them), and 8 MiB of zeros after that.
    const blocked = spawnSync("tar", ["-c", "-b", "8192", "-f", "-", "-C", src, "os-release"], { maxBuffer: 64 << 20 }).stdout;
    for (const [name, archive] of [
      ["blocked", blocked],
      ["zeros", Buffer.concat([blocked, Buffer.alloc(8 << 20)])],
    ] as const) {
      const root = target();
      const u = servedImage(name, lz4(archive));
      const r = await installImage({ http, url: u, root, log: silentLogger(), env: noWait });
      expect(r.passes).toBe(1);
      expect(readFileSync(join(root, "os-release"), "utf8")).toBe("ID=trailing\n");
    }
  });

  test("after tar finished at its end marker, a body without Content-Length that goes on (a skippable frame that never ends) is read at most the tail cap further", async () => {
    // A tar padded past tar's first 128 KiB record (tar reads whole records: it sees its end
    // marker once one is full), then a skippable frame (magic 0x184D2A50) announcing 4 GiB
    // that the server's endless zeros fill.
    const skippable = Buffer.from("502a4d18ffffffff", "hex");
    const packed = Buffer.concat([lz4(tarArchive([{ name: "os-release", data: "ID=endless\n" }], Buffer.alloc(256 << 10))), skippable]);
    const u = servedImage("after-end", packed);
    server.faults = [{ path: u.pathname, kind: "endless", at: 0, times: 1 }];
    server.requests.length = 0;
    const e = await installImage({ http, url: u, root: target(), log: silentLogger(), env: noWait, tailCapBytes: 1 << 20 }).catch((x: unknown) => x);
    server.faults = [];
    expect((e as AgentError).code).toBe("image_unpack");
    expect((e as AgentError).message).toContain(
      "tar finished (exit 0 at the archive's end marker) and the body, without a Content-Length, went on for more than 1048576 bytes after it",
    );
    // The cap, not the server's 1 GiB (the count starts once tar's exit is seen: on loopback
    // a few MiB may pass before).
    expect(Number((e as AgentError).details.offset)).toBeLessThan(64 << 20);
    expect(server.requests.filter((q) => q.path === u.pathname).length).toBe(1);
  });

  test("an image whose checksum is right but is no tar.lz4: image_unpack (exit 52) with tar's words, no retry", async () => {
    const junk = junkImage("bad");
    server.requests.length = 0;
    const e = await installImage({ http, url: new URL("/bad/img.tar.lz4", server.url), root: target(), log: silentLogger(), env: noWait }).catch((x: unknown) => x);
    expect((e as AgentError).code).toBe("image_unpack");
    expect((e as AgentError).exitCode).toBe(52);
    expect((e as AgentError).message).toContain("sha256 is right but tar/lz4 failed");
    expect((e as AgentError).message).toContain("lz4: not an lz4 frame: magic 0x73696874, expected 0x184d2204 (at or after compressed byte 0)");
    expect(server.requests.filter((q) => q.path === "/bad/img.tar.lz4").length).toBe(1);
  });

  test("an image cut short at the source, its checksum made for the cut file: image_unpack naming the unfinished lz4 frame, tar stopped", async () => {
    const whole = readFileSync(join(work, "cache/debian/12/img.tar.lz4"));
    const cut = whole.subarray(0, whole.length - 100_000);
    const dir = join(work, "cache", "cut");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "img.tar.lz4"), cut);
    writeFileSync(join(dir, "img.tar.lz4.sha256"), `${new Bun.CryptoHasher("sha256").update(cut).digest("hex")}  img.tar.lz4\n`);
    server.requests.length = 0;
    const e = await installImage({ http, url: new URL("/cut/img.tar.lz4", server.url), root: target(), log: silentLogger(), env: noWait }).catch((x: unknown) => x);
    expect((e as AgentError).code).toBe("image_unpack");
    expect((e as AgentError).message).toMatch(
      /sha256 is right but tar\/lz4 failed \(tar stopped\): .*lz4: the stream ended inside a frame \(\d+ more bytes expected\) \(at or after compressed byte \d+\)$/,
    );
    expect(server.requests.filter((q) => q.path === "/cut/img.tar.lz4").length).toBe(1);
  });

  test("a missing image is fatal at once (image_download, 404 not retried)", async () => {
    const root = target();
    const e = await installImage({ http, url: new URL("/debian/99/img.tar.lz4", server.url), root, log: silentLogger(), env: noWait }).catch((x: unknown) => x);
    expect((e as AgentError).code).toBe("image_download");
    expect((e as AgentError).message).toContain("no checksum sidecar");
  });

  test("after tar ended, a body without Content-Length that goes on is read at most the tail cap further: image_unpack, not retried", async () => {
    const junk = junkImage("endless");
    const p = "/endless/img.tar.lz4";
    server.requests.length = 0;
    server.faults = [{ path: p, kind: "endless", at: 0, times: 1 }];
    const t0 = performance.now();
    const e = await installImage({ http, url: new URL(p, server.url), root: target(), log: silentLogger(), env: noWait, tailCapBytes: 1 << 20 }).catch((x: unknown) => x);
    server.faults = [];
    expect((e as AgentError).code).toBe("image_unpack");
    expect((e as AgentError).message).toMatch(
      /tar\/lz4 ended \(tar stopped: .*lz4: not an lz4 frame: magic 0x73696874.*\) and the body, without a Content-Length, went on for more than 1048576 bytes after it/,
    );
    expect((e as AgentError).details).toMatchObject({ tailCapBytes: 1 << 20 });
    // The cap, not the server's 1 GiB: read up to ~1 MiB past the end, quickly.
    expect(Number((e as AgentError).details.offset)).toBeLessThan(junk.length + (1 << 20) + (1 << 20));
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(server.requests.filter((q) => q.path === p).length).toBe(1);
  });

  test("the whole install has a deadline: a body trickling in forever ends with image_download at the deadline", async () => {
    server.requests.length = 0;
    const at = Math.floor(img.bytes / 2);
    server.faults = [{ path, kind: "trickle", at, times: 100 }];
    const { time, env } = fakeEnv();
    const log = capturingLogger();
    // The stall guard does not fire (a byte arrives, and 1 byte per 10 s is the minimum); the deadline does.
    const run = installImage({ http, url: url(), root: target(), log: log.log, env, stallMs: 10_000, minBytesPerStall: 1, deadlineMs: 1_500, progressMs: 0 }).catch(
      (x: unknown) => x,
    );
    await waitFor(() => bytesSeen(log) > at, 10_000, "the first trickled byte", 5);
    time.advance(1_500);
    const e = await run;
    server.faults = [];
    expect((e as AgentError).code).toBe("image_download");
    expect((e as AgentError).message).toMatch(/not installed within the deadline of 1\.5 s \(at byte \d+ of \d+\); giving up$/);
    expect(reasons(log)).toEqual([]);
    expect(server.requests.filter((q) => q.path === path).length).toBe(1);
  });

  test("disk full: ENOSPC from tar is fatal at once (disk_full, one download, no retry)", async () => {
    const small = join(work, "small");
    mkdirSync(small, { recursive: true });
    const m = spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "mh-install-test", small], { encoding: "utf8" });
    expect(m.status).toBe(0);
    server.requests.length = 0;
    const e = await installImage({ http, url: url(), root: small, log: silentLogger(), env: noWait }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).code).toBe("disk_full");
    expect((e as AgentError).exitCode).toBe(53);
    expect((e as AgentError).message).toContain("No space left on device");
    expect(server.requests.filter((q) => q.path === path).length).toBe(1);
  });
});
