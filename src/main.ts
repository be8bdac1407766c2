/**
 * Entry point: builds the real context and hands over to the CLI. As PID 1 (or when
 * invoked as /init) it runs `run` under the init supervisor instead.
 */
import { createContext, processIo } from "./cli/context.ts";
import { runCli } from "./cli/program.ts";

async function main(): Promise<void> {
  const ctx = createContext(processIo());
  const args = process.argv.slice(2);
  const code = await runCli(args.length === 0 && process.pid === 1 ? ["run"] : args, ctx);
  process.exit(code);
}

void main();
