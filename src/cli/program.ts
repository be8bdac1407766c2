/**
 * The command tree. Each subcommand lives in its own file and registers itself (commands.ts loads it);
 * runCli maps every outcome to an exit code (exit-codes.ts) and prints errors as one
 * scrubbed line, never a stack trace.
 */
import { Command, CommanderError } from "commander";
import { AgentError, toAgentError } from "../platform/errors.ts";
import { EXIT_CODES } from "../platform/exit-codes.ts";
import { escapeUntrusted } from "../platform/log/escape.ts";
import type { Context } from "../platform/io/context.ts";
import { registrarsFor, type Registrar } from "./commands.ts";

export type { Registrar };

export function buildProgram(ctx: Context, registrars: readonly Registrar[]): Command {
  const program = new Command("metal-hammer")
    .description("machine-side agent of metal-stack's L3 (IPv6 SLAAC) provisioning")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) });
  for (const register of registrars) register(program, ctx);
  for (const sub of program.commands) sub.exitOverride().configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) });
  return program;
}

/** Runs one command line (without node/binary path) and returns the exit code; `registrars` default: what the line needs (commands.ts). */
export async function runCli(args: readonly string[], ctx: Context, registrars?: readonly Registrar[]): Promise<number> {
  const program = buildProgram(ctx, registrars ?? (await registrarsFor(args)));
  try {
    await program.parseAsync([...args], { from: "user" });
    return EXIT_CODES.ok.exit;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version displays are successes; everything else is a usage error.
      return e.exitCode === 0 ? 0 : EXIT_CODES.usage.exit;
    }
    const err = toAgentError(e);
    // The final line: one line whatever the message holds (server text is escaped), never dropped (Io.err).
    ctx.io.err(ctx.secrets.scrub(`metal-hammer: ${escapeUntrusted(err.message)}`) + "\n");
    if (err.code === "internal" && e instanceof Error && ctx.io.env.METAL_HAMMER_TRACE) ctx.io.err(ctx.secrets.scrub(String(e.stack)) + "\n");
    return err.exitCode;
  }
}

export { AgentError };
