/**
 * Initramfs size and unpack time, the choices side by side: which parts the image is
 * made of and how each compresses, every compressor and level the kernel can unpack
 * (lz4 legacy, zstd 9/15/19/22, xz with the x86 BCJ filter, gzip), stripping, and the
 * time from QEMU start to the agent's first line for each (the kernel unpacks the
 * initramfs before /init, so the difference to the uncompressed image is the unpack
 * cost). One cpio is built (the real agent, the module set, Debian's firmware, the disk
 * tools of --tools) and compressed by each; with --bytecode-agent a second cpio with that
 * agent (compiled with --bytecode) is compressed with zstd -22 and xz -9 too. QEMU boots
 * each image with a config error right after module loading, so a boot ends seconds
 * after /init. Boots go round-robin over the variants. Compressions run two at a time.
 * For each: the time from the first byte of the download to the image in memory at 1
 * and 10 Gbit/s (size over the line rate plus the host's unpack time; timeToImageS), and
 * the kernel's own unpack time under TCG (its clock from "Trying to unpack rootfs image
 * as initramfs" to "Freeing initrd memory"; the kernel's decompressors are not the
 * tools'). The default is the fastest at 1 Gbit/s (docs/initramfs.md).
 *   bun bench/initramfs-size.ts [--runs 1] [--variants lz4-9,zstd-19,...] [--no-qemu] [--firmware-dir build/firmware/root/lib/firmware]
 *     [--tools initramfs/tools.list] [--bytecode-agent build/bench/metal-hammer-bytecode]
 * Prints a markdown table (docs/initramfs.md, docs/bench.md).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { decodeCpio } from "../initramfs/lib/cpio.ts";
import { defaultRun, runLab } from "../lab/direct/lab.ts";
import { KVER, LAB_KERNEL } from "../lab/base/kernel.ts";
import { fastestAt, timeToImageS } from "../initramfs/lib/compress.ts";

const { values: v } = parseArgs({
  options: {
    runs: { type: "string", default: "1" },
    variants: { type: "string" },
    "no-qemu": { type: "boolean", default: false },
    "skip-parts": { type: "boolean", default: false },
    "firmware-dir": { type: "string", default: "build/firmware/root/lib/firmware" },
    agent: { type: "string", default: "dist/metal-hammer" },
    "bytecode-agent": { type: "string" },
    tools: { type: "string" },
    kernel: { type: "string", default: LAB_KERNEL },
  },
});

interface Variant {
  readonly name: string;
  readonly ext: string;
  readonly argv: (input: string) => string[];
  readonly unpack: (input: string) => string[];
}

const VARIANTS: readonly Variant[] = [
  { name: "none", ext: "", argv: (i) => ["cat", i], unpack: (i) => ["cat", i] },
  { name: "lz4-9", ext: ".lz4", argv: (i) => ["lz4", "-l", "-9", "-q", "-c", i], unpack: (i) => ["lz4", "-dc", i] },
  { name: "gzip-9", ext: ".gz", argv: (i) => ["gzip", "-9", "-n", "-c", i], unpack: (i) => ["gzip", "-dc", i] },
  { name: "zstd-9", ext: ".zst", argv: (i) => ["zstd", "-9", "-T0", "-q", "-c", i], unpack: (i) => ["zstd", "-dcq", i] },
  { name: "zstd-15", ext: ".zst", argv: (i) => ["zstd", "-15", "-T0", "-q", "-c", i], unpack: (i) => ["zstd", "-dcq", i] },
  { name: "zstd-19", ext: ".zst", argv: (i) => ["zstd", "-19", "-T0", "-q", "-c", i], unpack: (i) => ["zstd", "-dcq", i] },
  { name: "zstd-22", ext: ".zst", argv: (i) => ["zstd", "--ultra", "-22", "-T0", "-q", "-c", i], unpack: (i) => ["zstd", "-dcq", i] },
  { name: "xz-9", ext: ".xz", argv: (i) => ["xz", "--check=crc32", "--x86", "--lzma2=preset=9", "-T1", "-q", "-c", i], unpack: (i) => ["xz", "-dc", i] },
];
const chosen = v.variants ? VARIANTS.filter((x) => (v.variants as string).split(",").includes(x.name)) : VARIANTS;

const dir = "build/bench/size";
mkdirSync(dir, { recursive: true });
const mib = (n: number): string => (n / 1048576).toFixed(1);
const mb = (n: number): string => (n / 1e6).toFixed(1);

function timed(argv: string[], out?: string): number {
  const t0 = performance.now();
  const r = Bun.spawnSync(argv, { stdout: out ? Bun.file(out) : "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${r.stderr.toString()}`);
  return (performance.now() - t0) / 1000;
}

async function timedAsync(argv: string[], out: string): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(argv, { stdout: Bun.file(out), stderr: "pipe" });
  if ((await p.exited) !== 0) throw new Error(`${argv.join(" ")}: ${await new Response(p.stderr).text()}`);
  return (performance.now() - t0) / 1000;
}

/** Runs the jobs `width` at a time (the compressors are single-threaded or -T0 on a shared machine). */
async function pool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await (jobs[i] as () => Promise<T>)();
      }
    }),
  );
  return out;
}

function buildCpio(agent: string, out: string): void {
  const argv = [
    process.execPath,
    "initramfs/build.ts",
    "--agent",
    agent,
    "--kver",
    KVER,
    "--firmware-dir",
    v["firmware-dir"] as string,
    ...(v.tools ? ["--tools", v.tools] : []),
    "--compress",
    "none",
    "--out",
    out,
  ];
  const b = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (b.exitCode !== 0) throw new Error(`initramfs build failed: ${b.stderr.toString()}`);
}

// 1. One uncompressed image with everything the default build carries (and one with the bytecode agent).
const cpio = `${dir}/initramfs.cpio`;
buildCpio(v.agent as string, cpio);
const rawSize = statSync(cpio).size;
const bcCpio = `${dir}/initramfs-bytecode.cpio`;
if (v["bytecode-agent"]) buildCpio(v["bytecode-agent"], bcCpio);

// 2. The parts (groups of the manifest), each compressed on its own.
const groupOf = new Map<string, string>();
for (const line of readFileSync(`${cpio}.manifest`, "utf8").split("\n")) {
  const m = /^f \d+ (\S+) \d+ {2}\[(\w+)\]$/.exec(line);
  if (m) groupOf.set(m[1] as string, m[2] as string);
}
const parts = new Map<string, Uint8Array[]>();
for (const e of decodeCpio(new Uint8Array(readFileSync(cpio)))) {
  const g = groupOf.get(e.name);
  if (g && e.data.length > 0) parts.set(g, [...(parts.get(g) ?? []), e.data]);
}
const partRows: string[] = [];
if (v["skip-parts"]) parts.clear();
for (const [g, chunks] of [...parts.entries()].sort((a, b) => b[1].reduce((s, c) => s + c.length, 0) - a[1].reduce((s, c) => s + c.length, 0))) {
  const f = `${dir}/part-${g}`;
  writeFileSync(f, Buffer.concat(chunks));
  const raw = statSync(f).size;
  const sizes = ["lz4 -l -9", "zstd -19 -T0", "xz --x86 -9 -T1"].map((c) => {
    Bun.spawnSync(["sh", "-c", `${c.replace("xz --x86 -9", "xz --check=crc32 --x86 --lzma2=preset=9")} -q -c ${f} > ${f}.c`]);
    return statSync(`${f}.c`).size;
  });
  partRows.push(`| ${g} | ${mib(raw)} | ${sizes.map(mib).join(" | ")} |`);
  rmSync(`${f}.c`, { force: true });
  rmSync(f, { force: true });
}

// 3. Stripping: what strip would save on the modules (they are signed: stripping breaks the signature).
let modRaw = 0;
let modDebug = 0;
let modUnneeded = 0;
for (const line of readFileSync(`${cpio}.manifest`, "utf8").split("\n")) {
  const m = /^f \d+ (lib\/modules\/\S+\.ko) \d+/.exec(line);
  if (!m) continue;
  const src = `/lib/modules/${KVER}/${(m[1] as string).split("/").slice(3).join("/")}`;
  if (!existsSync(src)) continue;
  modRaw += statSync(src).size;
  Bun.spawnSync(["strip", "--strip-debug", "-o", `${dir}/s.ko`, src]);
  modDebug += statSync(`${dir}/s.ko`).size;
  Bun.spawnSync(["strip", "--strip-unneeded", "-o", `${dir}/s.ko`, src]);
  modUnneeded += statSync(`${dir}/s.ko`).size;
}
rmSync(`${dir}/s.ko`, { force: true });
// Libraries and tools: Debian ships them stripped already; what --strip-unneeded would still take.
let elfRaw = 0;
let elfUnneeded = 0;
for (const line of readFileSync(`${cpio}.manifest`, "utf8").split("\n")) {
  const m = /^f \d+ (\S+) \d+ {2}\[(libs|tools|busybox)\]$/.exec(line);
  if (!m) continue;
  const src = `/${m[1]}`;
  if (Bun.spawnSync(["strip", "--strip-unneeded", "-o", `${dir}/s.elf`, src], { stderr: "ignore" }).exitCode !== 0) continue;
  elfRaw += statSync(src).size;
  elfUnneeded += statSync(`${dir}/s.elf`).size;
}
rmSync(`${dir}/s.elf`, { force: true });

// 4. Each compressor: size, compress time, host unpack time, and QEMU start -> the agent's first line.
interface Row {
  name: string;
  agent: string;
  size: number;
  compressS: number;
  hostUnpackS: number;
  initS: number[];
  kernelUnpackS: number[];
}
const jobs: { name: string; agent: string; input: string; x: Variant }[] = chosen.map((x) => ({ name: x.name, agent: "no bytecode", input: cpio, x }));
if (v["bytecode-agent"])
  for (const x of VARIANTS.filter((y) => y.name === "zstd-22" || y.name === "xz-9")) jobs.push({ name: `${x.name}-bytecode`, agent: "--bytecode", input: bcCpio, x });
const files = new Map<string, string>();
const rows: Row[] = await pool(
  jobs.map((j) => async (): Promise<Row> => {
    const out = `${dir}/initramfs.cpio.${j.name}${j.x.ext}`;
    const compressS = await timedAsync(j.x.argv(j.input), out);
    files.set(j.name, out);
    return { name: j.name, agent: j.agent, size: statSync(out).size, compressS, hostUnpackS: NaN, initS: [], kernelUnpackS: [] };
  }),
  2,
);
// Host unpack times once every compression is done (none runs beside them), best of 3 each.
for (const [i, row] of rows.entries()) row.hostUnpackS = Math.min(...[0, 1, 2].map(() => timed((jobs[i] as { x: Variant }).x.unpack(files.get(row.name) as string))));
// Boots round-robin (every variant once per round), so a change in the machine's load hits all variants alike.
if (!v["no-qemu"]) {
  for (let i = 0; i < Number(v.runs); i++) {
    for (const row of rows) {
      // loglevel=7 after the lab's quiet: the kernel's unpack lines (KERN_INFO) reach the console.
      const r = await runLab(
        defaultRun({
          kernel: v.kernel as string,
          initrd: files.get(row.name) as string,
          live: false,
          servers: () => [],
          ra: false,
          expect: "reboot",
          timeoutMs: 240_000,
          extraCmdline: ["METAL_NET_TIMEOUT=not-a-duration", "loglevel=7"],
        }),
      );
      const first = r.records.find((e) => e.event === "init.options");
      row.initS.push(first ? first.ms / 1000 : NaN);
      const kernelAt = (re: RegExp): number => Number(r.lines.map((l) => re.exec(l.text)?.[1]).find((x) => x !== undefined) ?? NaN);
      row.kernelUnpackS.push(kernelAt(/\[\s*([\d.]+)\] Freeing initrd memory/) - kernelAt(/\[\s*([\d.]+)\] Trying to unpack rootfs image as initramfs/));
    }
  }
}
for (const f of files.values()) rmSync(f, { force: true });

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;
const base = rows.find((r) => r.name === "none");
const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
console.log(`\ninitramfs ${mib(rawSize)} MiB uncompressed (kernel ${KVER}); load average ${load}; QEMU TCG, median of ${v.runs}\n`);
if (partRows.length) console.log("| parts | raw MiB | lz4 -9 | zstd -19 | xz -9 --x86 |\n|---|---|---|---|---|\n" + partRows.join("\n"));
console.log(
  `\nmodules: ${mib(modRaw)} MiB as shipped; strip --strip-debug ${mib(modDebug)} MiB, --strip-unneeded ${mib(modUnneeded)} MiB (signed modules: any strip drops the signature)`,
);
console.log(`libs, tools, busybox: ${(elfRaw / 1e6).toFixed(2)} MB as shipped; strip --strip-unneeded ${(elfUnneeded / 1e6).toFixed(2)} MB\n`);
const f = (x: number, d = 2): string => (Number.isNaN(x) ? "-" : x.toFixed(d));
console.log(
  "| compression | agent | size MiB | size MB | compress s | host unpack s | to image at 1 Gbit/s s | at 10 Gbit/s s | kernel unpack (TCG) s | QEMU start -> /init s | unpack vs none s |\n|---|---|---|---|---|---|---|---|---|---|---|",
);
for (const r of rows) {
  const init = r.initS.length ? median(r.initS) : NaN;
  const delta = base && base.initS.length && r.initS.length ? init - median(base.initS) : NaN;
  const kernel = r.kernelUnpackS.length ? median(r.kernelUnpackS) : NaN;
  console.log(
    `| ${r.name} | ${r.agent} | ${mib(r.size)} | ${mb(r.size)} | ${r.compressS.toFixed(1)} | ${r.hostUnpackS.toFixed(2)} | ${timeToImageS(r.size, r.hostUnpackS, 1).toFixed(2)} | ${timeToImageS(r.size, r.hostUnpackS, 10).toFixed(2)} | ${f(kernel)} | ${f(init)} | ${f(delta)} |`,
  );
}
const same = rows.filter((r) => r.agent === "no bytecode").map((r) => ({ name: r.name, size: r.size, unpackS: r.hostUnpackS }));
console.log(`\nfastest to the image in memory: at 1 Gbit/s ${fastestAt(same, 1)}, at 10 Gbit/s ${fastestAt(same, 10)} (download + host unpack)`);
