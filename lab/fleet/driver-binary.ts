/**
 * The fleet's machines run the agent as the initramfs does: one compiled binary, not Bun
 * transpiling the source tree in every machine. From source each agent held ~100 MiB and
 * 100 of them took ~45 s of a 2-core machine to start (docs/bench.md), which measured the
 * transpiler, not the agent. The binary is the test composition root (agent-driver.ts:
 * the real CLI with disks and BMC replaced) compiled with the Makefile's flags
 * (`COMPILE`: --minify, the baseline runtime, no .env/bunfig autoload) and the two
 * worker entry points the agent spawns.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dir, "../..");
const RUNTIME = join(REPO, "node_modules/@oven/bun-linux-x64-baseline/bin/bun");
/** Compiling takes ~1 s here; the bound is for a machine under load. */
const COMPILE_TIMEOUT_MS = 120_000;

export const DRIVER_SOURCE = join(REPO, "test/integration/api/agent-driver.ts");

/** Compiles the driver to `outFile`; throws naming the command and bun's last lines when it fails. */
export function compileAgentDriver(outFile: string): string {
  if (!existsSync(RUNTIME)) throw new Error(`${RUNTIME} is missing: run make deps-npm (the baseline runtime the agent is compiled with)`);
  const argv = [
    process.execPath,
    "build",
    "--compile",
    "--minify",
    "--format=esm",
    // The workers at the paths the agent names them in a binary (`./network/...`, as
    // under src/main.ts), though this entry point lies outside src/.
    `--root=${join(REPO, "src")}`,
    `--compile-executable-path=${RUNTIME}`,
    "--target=bun-linux-x64-baseline",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    DRIVER_SOURCE,
    join(REPO, "src/network/netlink/event-worker.ts"),
    join(REPO, "src/network/lldp/reader-worker.ts"),
    "--outfile",
    outFile,
  ];
  const r = Bun.spawnSync(argv, { cwd: REPO, stdout: "pipe", stderr: "pipe", timeout: COMPILE_TIMEOUT_MS });
  if (r.exitCode !== 0) {
    const tail = `${r.stdout.toString()}${r.stderr.toString()}`.trim().split("\n").slice(-5).join(" | ");
    throw new Error(`compiling the fleet's agent (${argv.slice(0, 3).join(" ")} ... ${outFile}) failed (exit ${r.exitCode ?? r.signalCode}): ${tail}`);
  }
  return outFile;
}
