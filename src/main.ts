/**
 * Entry point: builds the real context and hands over to the CLI. As PID 1 (or when
 * invoked as /init) it runs `run` under the init supervisor instead.
 */
import { createContext, processIo } from "./cli/context.ts";
import { runCli } from "./cli/program.ts";

async function main(): Promise<number> {
  const ctx = createContext(processIo());
  const args = process.argv.slice(2);
  return runCli(args.length === 0 && process.pid === 1 ? ["run"] : args, ctx);
}

// No top-level await: the --bytecode build emits CommonJS.
void main().then((code) => process.exit(code));
