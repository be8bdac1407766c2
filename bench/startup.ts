/**
 * Start-up time of the compiled agent: wall time of `version` and `config --cmdline ...`
 * for one or more binaries side by side. Runs are interleaved (one of each binary per
 * round) so that load from other jobs hits every binary alike; min, median and p90 printed.
 *   bun bench/startup.ts [--runs 20] [binary ...]   (default: dist/metal-hammer)
 * `make bench-startup` puts the floors beside the agent (bench/empty-program.ts,
 * bench/cli-floor.ts: compiled with the same runtime and flags).
 */
const args = process.argv.slice(2);
let runs = 20;
const bins: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--runs") runs = Number(args[++i]);
  else bins.push(args[i] as string);
}
if (bins.length === 0) bins.push("dist/metal-hammer");

const CMDLINE = "console=ttyS0,115200n8 METAL_BOOT_URL=https://[2001:db8::10]/ METAL_NICS=eth0,eth1 METAL_NET_TIMEOUT=90s DEBUG=1";
const cases: [string, string[]][] = [
  ["version", ["version"]],
  ["config --cmdline", ["config", "--cmdline", CMDLINE, "--json"]],
];

function timeOnce(bin: string, argv: string[]): number {
  const t0 = Bun.nanoseconds();
  const p = Bun.spawnSync([bin, ...argv], { stdout: "ignore", stderr: "ignore" });
  const ms = (Bun.nanoseconds() - t0) / 1e6;
  if (p.exitCode !== 0) throw new Error(`${bin} ${argv.join(" ")} exited ${p.exitCode}`);
  return ms;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};

console.log(`runs per case: ${runs} (interleaved)`);
console.log(["binary".padEnd(36), "case".padEnd(18), "min ms", "median ms", "p90 ms", "size MB"].join("  "));
for (const [name, argv] of cases) {
  for (const bin of bins) timeOnce(bin, argv); // warm the page cache
  const times = new Map<string, number[]>(bins.map((b) => [b, []]));
  for (let r = 0; r < runs; r++) for (const bin of bins) times.get(bin)?.push(timeOnce(bin, argv));
  for (const bin of bins) {
    const xs = times.get(bin) ?? [];
    const size = (Bun.file(bin).size / 1e6).toFixed(1);
    const cells = [quantile(xs, 0).toFixed(1).padStart(6), quantile(xs, 0.5).toFixed(1).padStart(9), quantile(xs, 0.9).toFixed(1).padStart(6), size.padStart(7)];
    console.log([bin.padEnd(36), name.padEnd(18), ...cells].join("  "));
  }
}
