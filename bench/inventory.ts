/**
 * The inventory's sources side by side: our /proc and /sys reader (src/machine/inventory/)
 * against the systeminformation calls that would give the same facts (cpu, blockDevices,
 * networkInterfaces, bios, graphics, which run lscpu, lsblk, dmidecode, lspci and
 * `cat` through /bin/sh), each with the tools present and with PATH emptied (as in
 * an initramfs without them). Median of N runs, milliseconds, plus what came back.
 * Also the compiled binary's size with `systeminformation` (index) vs only its
 * memory module imported.
 * Run: bun bench/inventory.ts [runs]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import si from "systeminformation";
import { collectInventory } from "../src/machine/inventory/collect.ts";

const N = Number(process.argv[2] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    value = await fn();
    times.push(performance.now() - t);
  }
  return { ms: median(times), value };
}

const ours = await time(() => collectInventory({ sysRoot: "/sys", procRoot: "/proc" }));
const siAll = async () => {
  const [cpu, blocks, nics, bios, gpu, mem] = await Promise.all([si.cpu(), si.blockDevices(), si.networkInterfaces(), si.bios(), si.graphics(), si.mem()]);
  return {
    cpu: `${cpu.manufacturer} ${cpu.brand} ${cpu.physicalCores}c/${cpu.cores}t`,
    disks: blocks.filter((b) => b.type === "disk").length,
    nics: (Array.isArray(nics) ? nics : [nics]).length,
    bios: bios.vendor || "(none)",
    gpus: gpu.controllers.length,
    memory: mem.total,
  };
};
const withTools = await time(siAll);
const path = process.env.PATH;
process.env.PATH = "/nonexistent";
const noTools = await time(siAll);
process.env.PATH = path;

const h = ours.value.hardware;
console.log(`runs: ${N} (median)`);
console.log(["source", "ms", "result"].join("\t"));
console.log(
  [
    "src/machine/inventory (sysfs+/proc, si.mem)",
    ours.ms.toFixed(1),
    `cpu ${h.cpus.map((c) => `${c.vendor} ${c.model} ${c.cores}c/${c.threads}t`).join(",")} disks ${h.disks.length} nics ${h.nics.length} gpus ${h.gpus.length} memory ${h.memory}`,
  ].join("\t"),
);
console.log(["systeminformation, tools on PATH", withTools.ms.toFixed(1), JSON.stringify(withTools.value)].join("\t"));
console.log(["systeminformation, PATH empty", noTools.ms.toFixed(1), JSON.stringify(noTools.value)].join("\t"));

// Binary size: the whole package vs the memory module only.
const dir = mkdtempSync(join(tmpdir(), "mhp-bench-"));
try {
  for (const [name, src] of [
    ["import systeminformation (index)", `import si from "systeminformation"; console.log((await si.mem()).total);`],
    ["import systeminformation/lib/memory.js", `import { mem } from "systeminformation/lib/memory.js"; console.log((await mem()).total);`],
    ["no systeminformation", `console.log(1);`],
  ] as const) {
    const entry = join(import.meta.dir, `../.bench-si-${process.pid}.ts`);
    writeFileSync(entry, src);
    const out = join(dir, "bin");
    const b = Bun.spawnSync([process.execPath, "build", "--compile", "--minify", entry, "--outfile", out], { stdout: "pipe", stderr: "pipe" });
    rmSync(entry, { force: true });
    if (b.exitCode !== 0) throw new Error(b.stderr.toString());
    console.log(`${name}\t${(statSync(out).size / 2 ** 20).toFixed(2)} MiB`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
