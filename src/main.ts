/**
 * Entry point: builds the real context and hands over to the CLI. As PID 1 it runs
 * the init supervisor (src/init/), which runs `run` and never exits: the kernel
 * passes PID 1 the cmdline words it does not know as arguments, so they are ignored.
 */
import { createContext, processIo, type Context } from "./platform/io/context.ts";
import { escapeUntrusted } from "./platform/log/escape.ts";
import { runCli } from "./cli/program.ts";

async function main(ctx: Context): Promise<number> {
  if (process.pid === 1) {
    // Loaded here, not at the top: a command (net up, lldp, ...) loads only its own modules (cli/commands.ts).
    const [{ runPid1 }, { runAgent }] = await Promise.all([import("./init/pid1.ts"), import("./cli/run-command.ts")]);
    await runPid1(ctx, (cmdline) => runAgent(ctx, { cmdline }));
  }
  return runCli(process.argv.slice(2), ctx);
}

/** Every byte queued for stdout/stderr is written before exit (bounded: platform/log/output.ts FLUSH_TIMEOUT_MS). */
async function exitAfterFlush(ctx: Context, code: number): Promise<never> {
  await ctx.io.flush?.();
  process.exit(code);
}

// No top-level await: the --bytecode build emits CommonJS.
const ctx = createContext(processIo());
void main(ctx).then(
  (code) => exitAfterFlush(ctx, code),
  (e: unknown) => {
    // Reached only by a bug: still one final line, still flushed.
    ctx.io.err(ctx.secrets.scrub(`metal-hammer: internal error: ${escapeUntrusted(e instanceof Error ? e.message : String(e))}`) + "\n");
    return exitAfterFlush(ctx, 1);
  },
);
