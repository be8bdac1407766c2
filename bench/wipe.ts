/**
 * Wipe time per method on a disk the size of the lab's (an image file on a loop device
 * this bench creates and detaches), side by side with metal-hammer's way: `mkfs.ext4 -E
 * discard` + 1 MiB dd (its "discard"), and `dd bs=10240` over the whole disk (its
 * hard-disk path; `conv=fsync` added so the time includes reaching the disk, as our
 * overwrite's fsync does). Each method starts from a seeded disk (GPT, md superblock,
 * ext4) and is verified with the agent's own check. Bounded per method.
 * With --qemu the same comparison runs on the lab's disks inside QEMU (virtio with
 * discard ignored / unmapped / not offered, NVMe), with the built kernel and initramfs.
 * Run (root): bun bench/wipe.ts [--size-mib 256] [--runs 3] [--timeout 300] [--qemu]
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { MIB, type DiskFacts } from "../src/machine/disk/disk-facts.ts";
import { systemDiskIo } from "../src/machine/disk/io.ts";
import { DISK_FILES, diskFromFiles } from "../src/machine/disk/disk-sysfs.ts";
import { promisesZeroes, type WipeMethod } from "../src/machine/disk/wipe-plan.ts";
import { runMethod } from "../src/machine/disk/wipe-run.ts";
import { verifyWiped } from "../src/machine/disk/wipe-verify.ts";
import { silentLogger } from "../src/platform/log/logger.ts";
import { LAB_INITRD, LAB_KERNEL } from "../lab/base/kernel.ts";
import { bootVm, guestScript, markers, type GuestDisk } from "../test/e2e/disks-seed.ts";

const { values: v } = parseArgs({
  options: {
    "size-mib": { type: "string", default: "256" },
    runs: { type: "string", default: "3" },
    timeout: { type: "string", default: "300" },
    qemu: { type: "boolean", default: false },
  },
});
const sizeMiB = Number(v["size-mib"]);
const runs = Number(v.runs);
const timeoutMs = Number(v.timeout) * 1000;
if (process.getuid?.() !== 0) {
  process.stderr.write("bench/wipe.ts needs root (loop devices)\n");
  process.exit(2);
}

const dir = `.lab/bench-wipe-${process.pid}`;
mkdirSync(dir, { recursive: true });

const file = `${dir}/disk.img`;
const sh = (argv: string[]) => {
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
};
const io = systemDiskIo();
const log = silentLogger();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function facts(dev: string): DiskFacts {
  const name = dev.replace("/dev/", "");
  const files: Record<string, string | undefined> = {};
  for (const f of DISK_FILES) {
    try {
      files[f] = readFileSync(`/sys/block/${name}/${f}`, "utf8");
    } catch {
      files[f] = undefined;
    }
  }
  // The inventory leaves loop devices out: read them under a disk's name, then put the real name back.
  const d = diskFromFiles("benchdisk", files) as DiskFacts;
  return { ...d, name, path: dev };
}

/** A GPT and an ext4 in its second partition (mke2fs at an offset: the build host's loop devices show no partitions). */
function seed(dev: string): void {
  Bun.spawnSync(["sgdisk", "--zap-all", dev], { stdout: "ignore", stderr: "ignore" });
  sh(["sgdisk", "--clear", "--new=1:0:+32M", "--typecode=1:fd00", "--new=2:0:0", "--typecode=2:8300", dev]);
  const p2 = /^\s+2\s+(\d+)\s+(\d+)/m.exec(sh(["sgdisk", "-p", dev]));
  const start = Number(p2?.[1]);
  const sectors = Number(p2?.[2]) - start + 1;
  sh(["mkfs.ext4", "-q", "-F", "-L", "seed", "-E", `offset=${start * 512}`, dev, `${Math.floor((sectors * 512) / 1024)}k`]);
}

type Way = { readonly name: string; readonly run: (d: DiskFacts) => Promise<void>; readonly zeroes: boolean };
const ours = (m: WipeMethod, name: string): Way => ({
  name,
  run: (d) => runMethod({ mode: "fast", io, log, partitions: async () => [] }, d, m, timeoutMs),
  zeroes: m.kind !== "discard",
});
const tool = async (argv: string[]) => {
  const r = await io.run(argv, { timeoutMs });
  if (r.code !== 0) throw new Error(`${argv.join(" ")} exited ${r.code}${r.timedOut ? " (bound reached)" : ""}: ${r.stderr.trim()}`);
};
const WAYS: Way[] = [
  ours({ kind: "metadata" }, "agent: metadata (fast, no discard)"),
  ours({ kind: "discard", secure: false }, "agent: blkdiscard"),
  ours({ kind: "zeroout" }, "agent: blkdiscard --zeroout"),
  ours({ kind: "overwrite" }, "agent: overwrite (4 MiB writes, METAL_WIPE=overwrite)"),
  {
    name: "metal-hammer: mkfs.ext4 -E discard + dd 1 MiB",
    run: async (d) => {
      await tool(["mkfs.ext4", "-q", "-F", "-E", "discard", d.path]);
      await tool(["dd", "status=none", "if=/dev/zero", `of=${d.path}`, "bs=1M", "count=1", "conv=fsync"]);
    },
    zeroes: false,
  },
  {
    name: "metal-hammer: dd bs=10240 (hard disks)",
    run: (d) => tool(["dd", "status=none", "if=/dev/zero", `of=${d.path}`, "bs=10240", `count=${Math.floor(d.sizeBytes / 10240)}`, "conv=fsync"]),
    zeroes: true,
  },
];

if (v.qemu) {
  await benchQemu();
  process.exit(0);
}
let dev = "";
try {
  sh(["truncate", "-s", `${sizeMiB * MIB}`, file]);
  dev = sh(["losetup", "--find", "--show", file]).trim();
  const d = facts(dev);
  process.stdout.write(`wipe bench: ${dev} over a ${sizeMiB} MiB image, discard ${d.discard}, write-zeroes ${d.writeZeroes}, ${runs} runs each, bound ${timeoutMs / 1000} s\n\n`);
  process.stdout.write(`| method | median | min..max | MiB/s | verified |\n|---|---|---|---|---|\n`);
  for (const w of WAYS) {
    const times: number[] = [];
    let verdict = "yes";
    for (let i = 0; i < runs; i++) {
      seed(dev);
      const t = performance.now();
      try {
        await w.run(d);
      } catch (e) {
        verdict = `failed: ${(e as Error).message.slice(0, 80)}`;
        break;
      }
      times.push(performance.now() - t);
      await io.run(["blockdev", "--rereadpt", dev], { timeoutMs: 10_000 });
      const problems = await verifyWiped(io, d, { zeroes: w.zeroes && promisesZeroes({ kind: "overwrite" }, d, undefined), partitions: async () => [], timeoutMs: 30_000 });
      if (problems.length > 0) verdict = `no: ${problems[0]}`;
    }
    const med = median(times);
    const row = times.length
      ? [`${(med / 1000).toFixed(2)} s`, `${(Math.min(...times) / 1000).toFixed(2)}..${(Math.max(...times) / 1000).toFixed(2)} s`, (sizeMiB / (med / 1000)).toFixed(0)]
      : ["-", "-", "-"];
    process.stdout.write(`| ${w.name} | ${row.join(" | ")} | ${verdict} |\n`);
  }
} finally {
  if (dev) Bun.spawnSync(["losetup", "--detach", dev]);
  rmSync(dir, { recursive: true, force: true });
}

/** The same comparison inside QEMU on the lab's disk kinds; times from the agent's own report, dd timed by busybox. */
async function benchQemu(): Promise<void> {
  const bytes = sizeMiB * MIB;
  const disks: GuestDisk[] = [
    { file: `${dir}/a.img`, kind: "virtio", serial: "a", discard: "ignore" },
    { file: `${dir}/b.img`, kind: "virtio", serial: "b", discard: "unmap" },
    { file: `${dir}/c.img`, kind: "virtio", serial: "c", plain: true },
    { file: `${dir}/d.img`, kind: "virtio", serial: "d", plain: true },
    { file: `${dir}/n.img`, kind: "nvme", serial: "n", discard: "unmap" },
  ];
  try {
    for (const d of disks) sh(["truncate", "-s", String(bytes), d.file]);
    const names = ["vda", "vdb", "vdc", "vdd", "nvme0n1"];
    const seedCmd = names
      .map(
        (n) =>
          `sgdisk -n 1:0:+32M -t 1:fd00 -n 2:0:0 /dev/${n} >/dev/null && blockdev --rereadpt /dev/${n} && sleep 0.2 && mkfs.ext4 -q -F /dev/${n}${n.startsWith("nvme") ? "p" : ""}2`,
      )
      .join(" && ");
    const wipe = (n: string, mode: string) => ({ name: `${n}-${mode}`, argv: `metal-hammer disk wipe --yes --json --mode ${mode} --disks ${n}` });
    const run = await bootVm({
      name: "bench",
      dir,
      kernel: LAB_KERNEL,
      initrd: LAB_INITRD,
      disks,
      boundMs: timeoutMs * 6,
      script: guestScript(names, [
        { name: "seed", argv: `sh -c '${seedCmd}'` },
        wipe("vda", "fast"),
        wipe("vdb", "fast"),
        wipe("nvme0n1", "fast"),
        wipe("vdc", "overwrite"),
        { name: "dd", argv: `sh -c 'time dd if=/dev/zero of=/dev/vdd bs=10240 count=${Math.floor(bytes / 10240)} 2>&1; sync'` },
      ]),
    });
    const m = markers(run.lines);
    process.stdout.write(`wipe bench in QEMU (TCG, lab kernel ${LAB_KERNEL}): ${sizeMiB} MiB disks\n\n| disk | method (tried before) | time | MiB/s |\n|---|---|---|---|\n`);
    for (const [n, what] of [
      ["vda", "virtio, discard ignored by QEMU"],
      ["vdb", "virtio, discard unmapped"],
      ["nvme0n1", "QEMU NVMe"],
      ["vdc", "virtio without discard, METAL_WIPE=overwrite"],
    ] as const) {
      const mode = n === "vdc" ? "overwrite" : "fast";
      const r = JSON.parse(m.get(`${n}-${mode}`)?.text || "{}") as {
        disks?: { method: string; durationMs: number; attempts: { method: string; ok: boolean; durationMs: number }[] }[];
      };
      const d = r.disks?.[0];
      const failed = (d?.attempts ?? []).filter((a) => !a.ok).map((a) => `${a.method} ${(a.durationMs / 1000).toFixed(2)} s`);
      process.stdout.write(
        `| ${n} (${what}) | ${d?.method ?? "?"}${failed.length ? ` (after ${failed.join(", ")})` : ""} | ${d ? (d.durationMs / 1000).toFixed(2) : "?"} s | ${d ? (sizeMiB / (d.durationMs / 1000)).toFixed(0) : "?"} |\n`,
      );
    }
    const real = /real\s+(\d+)m\s*([\d.]+)s/.exec(m.get("dd")?.text ?? "");
    const ddS = real ? Number(real[1]) * 60 + Number(real[2]) : NaN;
    process.stdout.write(`| vdd (virtio without discard) | metal-hammer's dd bs=10240 (+ sync) | ${ddS.toFixed(2)} s | ${(sizeMiB / ddS).toFixed(0)} |\n`);
    if (run.timedOut) process.stdout.write(`(the VM reached its bound; console in ${dir}/bench.console.log)\n`);
  } finally {
    for (const d of disks) rmSync(d.file, { force: true });
  }
}
