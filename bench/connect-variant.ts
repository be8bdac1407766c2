/**
 * Today's Connect client (src/clients/api/connect-client.ts) against connect-es (@connectrpc/connect over
 * the agent's own HttpClient: bench/connect-variant/client.ts): builds the agent a second time
 * with that client in build/connect-variant/ (same `bun build --compile` flags as the
 * Makefile), then prints both binaries' sizes and the wall time of `version`, `run --help`,
 * `reach --help` and a real `reach` (metal-boot, VersionService/Get, image cache) against the
 * stand-ins on [::1]. Figures go to docs/apiserver.md ("Client: today's or connect-es").
 *   bun bench/connect-variant.ts [--runs 20]     (after `make build`)
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStandins } from "../lab/standins/standins.ts";

const REPO = join(import.meta.dir, "..");
const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] || 20) || 20;
const today = join(REPO, "dist/metal-hammer");
const dir = join(REPO, "build/connect-variant");

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
cpSync(join(REPO, "src"), join(dir, "src"), { recursive: true });
cpSync(join(REPO, "package.json"), join(dir, "package.json"));
cpSync(join(REPO, "tsconfig.json"), join(dir, "tsconfig.json"));
symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
symlinkSync(join(REPO, "kernel-config"), join(dir, "kernel-config"));
cpSync(join(REPO, "src/clients/api/connect-client.ts"), join(dir, "src/clients/api/client-today.ts"));
cpSync(join(import.meta.dir, "connect-variant/client.ts"), join(dir, "src/clients/api/connect-client.ts"));
const variant = join(dir, "dist/metal-hammer");
// The variant's client is typechecked where it is used (tsconfig.json leaves bench/connect-variant out).
const tsc = Bun.spawnSync([join(REPO, "node_modules/.bin/tsc"), "--noEmit", "-p", "tsconfig.json"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
if (tsc.exitCode !== 0) throw new Error(`variant typecheck failed: ${tsc.stdout.toString()}${tsc.stderr.toString()}`);
const commit = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: REPO }).stdout.toString().trim();
const build = Bun.spawnSync(
  [
    join(REPO, "node_modules/.bin/bun"),
    "build",
    "--compile",
    "--minify",
    "--format=esm",
    `--compile-executable-path=${join(REPO, "node_modules/@oven/bun-linux-x64-baseline/bin/bun")}`,
    "--target=bun-linux-x64-baseline",
    "--define",
    `METAL_HAMMER_COMMIT="${commit}"`,
    "--define",
    'METAL_HAMMER_TARGET="bun-linux-x64-baseline"',
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "src/main.ts",
    "src/network/netlink/event-worker.ts",
    "src/network/lldp/reader-worker.ts",
    "--outfile",
    "dist/metal-hammer",
  ],
  { cwd: dir, stdout: "pipe", stderr: "pipe" },
);
if (build.exitCode !== 0) throw new Error(`variant build failed: ${build.stderr.toString()}`);

const state = mkdtempSync(join(tmpdir(), "mh-connect-bench-"));
const on = { host: "::1", port: 0 };
const UUID = "4c4c4544-0042-3510-8051-b5c04f4a3140";
const st = await startStandins({ stateDir: join(state, "standins"), listen: { boot: on, api: on, images: on }, machines: [{ uuid: UUID, partition: "lab" }] });
const cmdline = `METAL_BOOT_URL=${st.urls.boot}/ METAL_CA=${st.bootCa.certFile} METAL_UUID=${UUID}`;
const cases: [string, string[]][] = [
  ["version", ["version"]],
  ["run --help", ["run", "--help"]],
  ["reach --help", ["reach", "--help"]],
  ["reach (stand-ins)", ["reach", "--cmdline", cmdline, "--json"]],
];

async function timeOnce(bin: string, argv: string[]): Promise<number> {
  const t0 = Bun.nanoseconds();
  const p = Bun.spawn([bin, ...argv], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const ms = (Bun.nanoseconds() - t0) / 1e6;
  if (code !== 0) throw new Error(`${bin} ${argv.join(" ")} exited ${code}: ${out}${err}`);
  return ms;
}
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] as number;

try {
  console.log(`runs per case: ${runs}; sizes: today ${statSync(today).size} bytes, connect-es ${statSync(variant).size} bytes (+${statSync(variant).size - statSync(today).size})`);
  // The minimum is the least disturbed by other load on the machine; the median and p90 show the spread.
  console.log(["case".padEnd(20), "today min", "median", "p90", "connect-es min", "median", "p90"].join("  "));
  for (const [name, argv] of cases) {
    const xs: Record<string, number[]> = { today: [], variant: [] };
    await timeOnce(today, argv);
    await timeOnce(variant, argv);
    // Interleaved, so drift in the machine's load hits both alike.
    for (let i = 0; i < runs; i++) {
      xs.today?.push(await timeOnce(today, argv));
      xs.variant?.push(await timeOnce(variant, argv));
    }
    const f = (k: string, q: number) => quantile(xs[k] ?? [], q).toFixed(1);
    console.log(
      [
        name.padEnd(20),
        f("today", 0).padStart(9),
        f("today", 0.5).padStart(6),
        f("today", 0.9).padStart(5),
        f("variant", 0).padStart(14),
        f("variant", 0.5).padStart(6),
        f("variant", 0.9).padStart(5),
      ].join("  "),
    );
  }
} finally {
  await st.stop();
  rmSync(state, { recursive: true, force: true });
}
