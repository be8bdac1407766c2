/**
 * Entry point: builds the real context and hands over to the CLI. As PID 1 it runs
 * the init supervisor (src/init/), which runs `run` and never exits: the kernel
 * passes PID 1 the cmdline words it does not know as arguments, so they are ignored.
 */
import { createContext, processIo } from "./cli/context.ts";
import { runCli } from "./cli/program.ts";
import { runPid1 } from "./init/pid1.ts";

async function main(): Promise<number> {
  const ctx = createContext(processIo());
  if (process.pid === 1) await runPid1(ctx);
  return runCli(process.argv.slice(2), ctx);
}

// No top-level await: the --bytecode build emits CommonJS.
void main().then((code) => process.exit(code));
