import { describe, expect, test } from "bun:test";
import { isAgentError } from "../../../src/platform/errors.ts";
import { MIB } from "../../../src/machine/disk/disk-facts.ts";
import { WipeFailedError, wipeDisks } from "../../../src/machine/disk/wipe-run.ts";
import { captureLogger } from "./log.ts";
import { disk, fakeMachine, type FakeDev } from "./helpers.ts";

const SIZE = 4 * MIB;
const dev = (over: Partial<FakeDev> = {}): FakeDev => ({ bytes: new Uint8Array(SIZE).fill(0xab), signatures: ["gpt", "PMBR"], partitions: ["x1", "x2"], ...over });

describe("wipeDisks", () => {
  test("a discard the device ignores does not count: the signatures are still there, so the next method runs and verifies", async () => {
    const devs = { "/dev/vda": dev({ ignoresDiscard: true }) };
    const { io, calls } = fakeMachine(devs);
    const { log, lines } = captureLogger();
    const d = disk({
      name: "vda",
      path: "/dev/vda",
      sizeBytes: SIZE,
      rotational: false,
      discard: true,
      partitions: [{ name: "vda1", path: "/dev/vda1", number: 1, sizeBytes: MIB }],
    });
    const report = await wipeDisks([d], { mode: "fast", io, log, partitions: async () => devs["/dev/vda"].partitions });
    const r = report.disks[0]!;
    expect(r.outcome).toBe("wiped");
    expect(r.method).toBe("metadata");
    expect(r.attempts.map((a) => [a.method, a.ok])).toEqual([
      ["discard-secure", false],
      ["discard", false],
      ["metadata", true],
    ]);
    expect(r.attempts[1]!.error).toMatch(/verify: wipefs still finds gpt/);
    // metadata: partitions before the disk, md superblocks and signatures, then both ends zeroed.
    const meta = calls.filter((c) => c[0] === "mdadm" || (c[0] === "wipefs" && c.includes("--all"))).map((c) => `${c[0]} ${c.at(-1)}`);
    expect(meta).toEqual(["mdadm /dev/vda1", "wipefs /dev/vda1", "mdadm /dev/vda", "wipefs /dev/vda"]);
    expect(devs["/dev/vda"].bytes.subarray(0, MIB).every((b) => b === 0)).toBe(true);
    expect(devs["/dev/vda"].bytes.subarray(SIZE - MIB).every((b) => b === 0)).toBe(true);
    expect(r.zeroesChecked).toBe(true);
    expect(lines.filter((l) => l.event === "disk.wipe.fallback").length).toBe(2);
  });

  test("all disks are wiped in parallel and a discard that works is verified by wipefs and blkid", async () => {
    const devs = { "/dev/sda": dev(), "/dev/sdb": dev() };
    const { io } = fakeMachine(devs);
    const { log } = captureLogger();
    const mk = (n: string) => disk({ name: n, path: `/dev/${n}`, sizeBytes: SIZE, rotational: false, discard: true });
    const report = await wipeDisks([mk("sda"), mk("sdb")], { mode: "fast", io, log, partitions: async (n) => devs[`/dev/${n}` as "/dev/sda"].partitions });
    expect(report.disks.map((r) => [r.disk, r.outcome, r.method])).toEqual([
      ["sda", "wiped", "discard"],
      ["sdb", "wiped", "discard"],
    ]);
  });

  test("a read-only disk stops the wipe with wipe_failed naming the disk, after the other disks are done", async () => {
    const devs = { "/dev/vda": dev(), "/dev/vdc": dev({ readOnly: true }) };
    const { io } = fakeMachine(devs);
    const { log, lines } = captureLogger();
    const err = await wipeDisks([disk({ name: "vda", path: "/dev/vda", sizeBytes: SIZE }), disk({ name: "vdc", path: "/dev/vdc", sizeBytes: SIZE, readOnly: true })], {
      mode: "fast",
      io,
      log,
      partitions: async () => [],
    }).catch((e) => e);
    expect(isAgentError(err)).toBe(true);
    expect(err.code).toBe("wipe_failed");
    expect(err.exitCode).toBe(60);
    expect(err.message).toContain("/dev/vdc");
    expect(err.message).toMatch(/read-only/);
    expect(err.message).not.toContain("/dev/vda");
    // The whole report is typed (`disk wipe --json` prints it) and in the log line's details, the same object.
    expect(err).toBeInstanceOf(WipeFailedError);
    const report = (err as WipeFailedError).report;
    expect(report.disks.map((d) => [d.path, d.outcome])).toEqual([
      ["/dev/vda", "wiped"],
      ["/dev/vdc", "failed"],
    ]);
    expect(err.details).toEqual({ disks: ["/dev/vdc"], report });
    expect(devs["/dev/vda"].signatures).toEqual([]);
    expect(lines.some((l) => l.event === "disk.wipe.failed" && l.disk === "vdc")).toBe(true);
  });

  test("a disk whose every method fails names the disk and the last method tried", async () => {
    const devs = { "/dev/sdx": dev({ readOnly: true }) };
    const { io } = fakeMachine(devs);
    const { log } = captureLogger();
    const err = await wipeDisks([disk({ name: "sdx", path: "/dev/sdx", sizeBytes: SIZE })], { mode: "fast", io, log, partitions: async () => [] }).catch((e) => e);
    expect(err.code).toBe("wipe_failed");
    expect(err.message).toMatch(/\/dev\/sdx \(metadata\): wipefs --all --force \/dev\/sdx exited 1: .*Read-only/);
  });

  test("arrays and volumes still active on a disk are deactivated before anything is wiped", async () => {
    const devs = { "/dev/sda": dev() };
    const { io, calls } = fakeMachine(devs);
    const { log } = captureLogger();
    await wipeDisks([disk({ name: "sda", path: "/dev/sda", sizeBytes: SIZE, holders: ["dm-0", "md127"] })], { mode: "fast", io, log, partitions: async () => [] });
    expect(calls.slice(0, 2)).toEqual([
      ["lvm", "vgchange", "--activate", "n"],
      ["mdadm", "--stop", "--scan"],
    ]);
    const quiet = fakeMachine({ "/dev/sda": dev() });
    await wipeDisks([disk({ name: "sda", path: "/dev/sda", sizeBytes: SIZE })], { mode: "fast", io: quiet.io, log, partitions: async () => [] });
    expect(quiet.calls.some((c) => c[0] === "lvm")).toBe(false);
  });

  test("namespaces of one NVMe controller are wiped one after the other, other disks alongside", async () => {
    const devs = { "/dev/nvme0n1": dev(), "/dev/nvme0n2": dev(), "/dev/sda": dev() };
    const { io, calls } = fakeMachine(devs, { nvme: () => ({ code: 1, stdout: "", stderr: "no Identify here", timedOut: false }) });
    const { log } = captureLogger();
    const ns = (n: number) => disk({ name: `nvme0n${n}`, path: `/dev/nvme0n${n}`, sizeBytes: SIZE, nvme: true, nvmeController: "nvme0", rotational: false, discard: true });
    await wipeDisks([ns(1), ns(2), disk({ name: "sda", path: "/dev/sda", sizeBytes: SIZE, discard: true })], { mode: "fast", io, log, partitions: async () => [] });
    const touched = calls.map((c) => c.find((a) => a.startsWith("/dev/nvme0n") || a === "/dev/sda")).filter((x): x is string => x !== undefined);
    const n1 = touched.map((t, i) => (t === "/dev/nvme0n1" ? i : -1)).filter((i) => i >= 0);
    const n2 = touched.map((t, i) => (t === "/dev/nvme0n2" ? i : -1)).filter((i) => i >= 0);
    expect(Math.max(...n1)).toBeLessThan(Math.min(...n2));
    // sda did not wait for the NVMe queue
    expect(touched.indexOf("/dev/sda")).toBeLessThan(Math.max(...n1));
  });

  test("overwrite writes every byte with progress lines and verifies zeroes", async () => {
    const devs = { "/dev/sda": dev() };
    const { io } = fakeMachine(devs);
    const { log, lines } = captureLogger();
    const report = await wipeDisks([disk({ name: "sda", path: "/dev/sda", sizeBytes: SIZE })], { mode: "overwrite", io, log, partitions: async () => [], progressEveryMs: 1 });
    expect(report.disks[0]!.method).toBe("overwrite");
    expect(devs["/dev/sda"].bytes.every((b) => b === 0)).toBe(true);
    const progress = lines.filter((l) => l.event === "disk.wipe.progress");
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toMatchObject({ written: SIZE, total: SIZE, percent: 100 });
  });

  test("a long erase by one tool call (zeroout) logs a still-running line with its elapsed time and bound", async () => {
    const devs = { "/dev/sda": dev() };
    const { io, time } = fakeMachine(devs);
    const { log, lines } = captureLogger();
    // blkdiscard --zeroout takes 150 ms of the fake clock; a line every 20 ms.
    const slow = { ...io, run: async (argv: readonly string[], o: { readonly timeoutMs: number }) => (argv.includes("--zeroout") && time.advance(150), io.run(argv, o)) };
    const d = disk({ name: "sda", path: "/dev/sda", sizeBytes: SIZE, rotational: false, writeZeroes: true });
    const report = await wipeDisks([d], { mode: "fast", io: slow, log, partitions: async () => [], heartbeatMs: 20 });
    expect(report.disks[0]!.method).toBe("zeroout");
    const beats = lines.filter((l) => l.event === "disk.wipe.progress");
    expect(beats.map((b) => b.elapsedMs)).toEqual([20, 40, 60, 80, 100, 120, 140]);
    expect(beats[0]).toMatchObject({ disk: "sda", method: "zeroout", timeoutMs: 600_000 });
    expect(String(beats[0]!.msg)).toMatch(/^\/dev\/sda: zeroout still running after \d+ s \(blkdiscard; bound 600 s\)$/);
    // none after the call returned
    const n = beats.length;
    time.advance(60);
    expect(lines.filter((l) => l.event === "disk.wipe.progress").length).toBe(n);
    expect(time.pending()).toBe(0);
  });

  test("an overwrite past its bound stops with the bytes written so far", async () => {
    const devs = { "/dev/sda": dev() };
    const { io } = fakeMachine(devs);
    const { log } = captureLogger();
    // 1 byte/s assumed: the bound is the 10-minute floor; the fake clock advances 1 s per block.
    const big = disk({ name: "sda", path: "/dev/sda", sizeBytes: SIZE });
    devs["/dev/sda"].bytes = new Uint8Array(SIZE);
    const err = await wipeDisks([big], {
      mode: "overwrite",
      io: { ...io, writeZeroes: (p, o, l, _b, progress) => io.writeZeroes(p, o, l, 1024, progress) },
      log,
      partitions: async () => [],
      minRateBytesPerSec: 1e12,
    }).catch((e) => e);
    expect(err.code).toBe("wipe_failed");
    expect(err.message).toMatch(/overwrite not finished within 600 s/);
  });

  test("NVMe: id-ctrl decides, crypto format runs with the controller's setting and the namespace is verified", async () => {
    const devs = { "/dev/nvme0n1": dev() };
    const { io, calls } = fakeMachine(devs, {
      nvme: (argv) => {
        if (argv[1] === "id-ctrl") return { code: 0, stdout: '{"oacs":2,"fna":4,"sanicap":0}', stderr: "", timedOut: false };
        if (argv[1] === "id-ns") return { code: 0, stdout: '{"dlfeat":1}', stderr: "", timedOut: false };
        if (argv[1] === "format") {
          devs["/dev/nvme0n1"].bytes.fill(0);
          devs["/dev/nvme0n1"].signatures = [];
          return { code: 0, stdout: "Success formatting namespace:1\n", stderr: "", timedOut: false };
        }
        return undefined;
      },
    });
    const { log } = captureLogger();
    const d = disk({ name: "nvme0n1", path: "/dev/nvme0n1", sizeBytes: SIZE, nvme: true, nvmeController: "nvme0", rotational: false, discard: true });
    const report = await wipeDisks([d], { mode: "fast", io, log, partitions: async () => [] });
    expect(report.disks[0]).toMatchObject({ method: "nvme-format-crypto", zeroesChecked: true });
    expect(calls.find((c) => c[1] === "format")!.slice(0, 4)).toEqual(["nvme", "format", "/dev/nvme0n1", "--ses=2"]);
  });
});
