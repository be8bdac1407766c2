/**
 * `kconfig check` wall time with the module set given three ways, side by side: a comma
 * list, the kernel's modules.dep (one file, ~4000 lines) and the module directory
 * (a recursive walk of ~4000 files). Median and p90 over N runs of the compiled binary.
 *   bun bench/kconfig.ts [--runs 20] [--config /boot/config-X] [binary]   (default: dist/metal-hammer)
 */
import { readdirSync } from "node:fs";

const args = process.argv.slice(2);
let runs = 20;
let config = "";
let bin = "dist/metal-hammer";
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--runs") runs = Number(args[++i]);
  else if (args[i] === "--config") config = args[++i] as string;
  else bin = args[i] as string;
}
if (config === "") {
  const configs = readdirSync("/boot")
    .filter((f) => f.startsWith("config-"))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  if (configs.length === 0) throw new Error("no /boot/config-*: give --config");
  config = `/boot/${configs.at(-1)}`;
}
const tree = `/lib/modules/${config.slice(config.lastIndexOf("/config-") + "/config-".length)}`;

const cases: [string, string[]][] = [
  ["no --modules", []],
  ["--modules a,b (comma list)", ["--modules", "virtio_net,e1000"]],
  ["--modules modules.dep", ["--modules", `${tree}/modules.dep`]],
  ["--modules <dir> (walk)", ["--modules", tree]],
];

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};

console.log(`kconfig check --config ${config}, ${bin}, ${runs} runs each`);
console.log(`${"case".padEnd(30)}  median ms  p90 ms`);
for (const [name, extra] of cases) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = Bun.nanoseconds();
    const p = Bun.spawnSync([bin, "kconfig", "check", "--config", config, ...extra], { stdout: "ignore", stderr: "ignore" });
    times.push((Bun.nanoseconds() - t0) / 1e6);
    if (p.exitCode !== 0 && p.exitCode !== 40) throw new Error(`${name}: exit ${p.exitCode}`);
  }
  console.log(`${name.padEnd(30)}  ${quantile(times, 0.5).toFixed(1).padStart(9)}  ${quantile(times, 0.9).toFixed(1).padStart(6)}`);
}
