/**
 * Boot time in the QEMU lab and initramfs size, per compression side by side:
 * QEMU start -> kernel start (derived from the kernel's own clock at power-off) ->
 * /init hand-off (the agent's first console line) -> network ready -> last agent step
 * -> power-off; medians over N boots. Builds build/bench/initramfs.<compression>.
 *   bun bench/boot.ts [--runs 3] [--compress lz4,zstd,gzip,none] [--memory 1024] [--firmware seabios|qboot] [--nic virtio] [--fast]
 * Targets (docs/lab.md): <= 8 s QEMU start to /init under TCG; the initramfs within
 * SIZE_LIMIT_BYTES (the default's size + 10 %, initramfs/lib/compress.ts).
 */
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { defaultRun, runLab } from "../lab/direct/lab.ts";
import { KVER, LAB_KERNEL } from "../lab/base/kernel.ts";
import { SIZE_LIMIT_BYTES } from "../initramfs/lib/compress.ts";

const { values: v } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    compress: { type: "string", default: "lz4,zstd,gzip,none" },
    memory: { type: "string", default: "1024" },
    firmware: { type: "string", default: "seabios" },
    fast: { type: "boolean", default: false },
    nic: { type: "string", default: "virtio" },
    kernel: { type: "string", default: LAB_KERNEL },
    kver: { type: "string", default: KVER },
  },
});
const runs = Number(v.runs);
const comps = (v.compress as string).split(",");

const median = (xs: number[]): number | undefined => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : undefined;
};
const sec = (ms: number | undefined): string => (ms === undefined ? "-" : (ms / 1000).toFixed(2));

interface Row {
  comp: string;
  sizeMiB: number;
  buildS: number;
  kernel: number[];
  init: number[];
  net: number[];
  last: number[];
  end: number[];
  outcomes: string[];
}

const rows: Row[] = [];
for (const comp of comps) {
  const out = `build/bench/initramfs.${comp}`;
  const t0 = performance.now();
  const b = Bun.spawnSync(
    [process.execPath, "initramfs/build.ts", "--kver", v.kver as string, "--firmware-dir", "build/firmware/root/lib/firmware", "--compress", comp, "--out", out],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (b.exitCode !== 0) throw new Error(`initramfs build (${comp}) failed: ${b.stderr.toString()}`);
  const row: Row = { comp, sizeMiB: statSync(out).size / 1048576, buildS: (performance.now() - t0) / 1000, kernel: [], init: [], net: [], last: [], end: [], outcomes: [] };
  for (let i = 0; i < runs; i++) {
    const r = await runLab(
      defaultRun({
        kernel: v.kernel as string,
        initrd: out,
        live: false,
        memoryMiB: Number(v.memory),
        firmware: v.firmware as "seabios" | "qboot",
        fast: Boolean(v.fast),
        nicModel: v.nic as "virtio" | "e1000",
        timeoutMs: 180_000,
      }),
    );
    const at = (ev: string): number => r.records.find((x) => x.event === ev)?.ms ?? NaN;
    const endLine = r.lines.findLast((l) => /reboot: (Power down|Restarting)/.test(l.text));
    const kernelUptime = endLine ? Number(/\[\s*(\d+\.\d+)\]/.exec(endLine.text)?.[1]) * 1000 : NaN;
    row.kernel.push(endLine ? endLine.ms - kernelUptime : NaN);
    row.init.push(at("init.options"));
    row.net.push(at("net.ready"));
    row.last.push(r.records.at(-1)?.ms ?? NaN);
    row.end.push(endLine?.ms ?? NaN);
    row.outcomes.push(r.outcome);
  }
  rows.push(row);
}

const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
console.log(
  `QEMU lab boot (TCG, -cpu max, ${v.memory} MiB, ${v.firmware}, ${v.nic}${v.fast ? ", METAL_NET_FAST=1" : ""}), median of ${runs}, seconds since QEMU start; load average ${load}`,
);
console.log(["compress", "size MiB", "build s", "kernel", "/init", "net ready", "last step", "power-off", "outcomes"].map((h) => h.padStart(10)).join(" "));
for (const r of rows) {
  console.log(
    [
      r.comp,
      r.sizeMiB.toFixed(1),
      r.buildS.toFixed(1),
      sec(median(r.kernel)),
      sec(median(r.init)),
      sec(median(r.net)),
      sec(median(r.last)),
      sec(median(r.end)),
      r.outcomes.join(","),
    ]
      .map((c) => String(c).padStart(10))
      .join(" "),
  );
}
console.log(`targets: /init <= 8 s after QEMU start; initramfs <= ${SIZE_LIMIT_BYTES.toLocaleString("en")} bytes`);
