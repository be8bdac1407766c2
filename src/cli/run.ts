import type { Command } from "commander";
import { configToJson } from "../config/config.ts";
import { runFlow } from "../flow/run-flow.ts";
import { logEvent } from "../log/logger.ts";
import { versionInfo } from "../version.ts";
import type { Context } from "./context.ts";
import { loadConfig } from "./read-cmdline.ts";

export function registerRun(program: Command, ctx: Context): void {
  program
    .command("run")
    .description("the whole boot flow (what runs as PID 1 or /init)")
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline")
    .option("--file <path>", "read the cmdline from this file")
    .action(async (opts: { cmdline?: string; file?: string }) => {
      const config = await loadConfig(ctx.io, opts);
      const log = ctx.logger(config.logLevel);
      logEvent(log, "agent.start", { ...versionInfo(), pid: process.pid, mode: config.mode });
      logEvent(log, "agent.config", { config: configToJson(config) });
      await runFlow(config, { log, secrets: ctx.secrets });
    });
}
