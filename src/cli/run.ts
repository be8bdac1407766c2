import type { Command } from "commander";
import { configToJson } from "../config/config.ts";
import { runFlow } from "../flow/run-flow.ts";
import { logEvent } from "../log/logger.ts";
import { versionInfo } from "../version.ts";
import type { Context } from "./context.ts";
import { loadConfig, type CmdlineSource } from "./read-cmdline.ts";

/** `run`'s body, also what PID 1 runs under the init supervisor. Throws AgentError. */
export async function runAgent(ctx: Context, src: CmdlineSource): Promise<void> {
  const config = await loadConfig(ctx.io, src);
  const log = ctx.logger(config.logLevel);
  logEvent(log, "agent.start", { ...versionInfo(), pid: process.pid, mode: config.mode });
  logEvent(log, "agent.config", { config: configToJson(config) });
  await runFlow(config, { log, secrets: ctx.secrets });
}

export function registerRun(program: Command, ctx: Context): void {
  program
    .command("run")
    .description("the whole boot flow (what runs as PID 1 or /init)")
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline")
    .option("--file <path>", "read the cmdline from this file")
    .action(async (opts: CmdlineSource) => {
      await runAgent(ctx, opts);
    });
}
