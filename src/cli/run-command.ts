import type { Command } from "commander";
import { compose, composeOps } from "../agent/compose.ts";
import { runFlow } from "../agent/run-flow.ts";
import { decideStart, START_STAGES } from "../agent/flow-start.ts";
import type { Services } from "../agent/services.ts";
import { configToJson } from "../config/config.ts";
import { logEvent } from "../platform/log/logger.ts";
import { versionInfo } from "../platform/version.ts";
import { addAgentOptions, agentConfig, agentPaths, type AgentOptions } from "./agent-options.ts";
import type { Context } from "../platform/io/context.ts";

/**
 * `run`'s body, also what PID 1 runs under the init supervisor (src/init/): parses the
 * options and the configuration once, starts the logger and the watchdog, has the
 * composition root (src/agent/compose.ts) build the services and runs the flow.
 * `over` replaces services (test drivers). Throws AgentError.
 */
export async function runAgent(ctx: Context, opts: AgentOptions & { from?: string }, over: Partial<Services> = {}): Promise<void> {
  const config = await agentConfig(ctx, opts);
  const start = decideStart(opts.from);
  const paths = agentPaths(opts);
  // Before the logger: every line it writes also goes to the log shipper (remote logging, once metal-boot's config names an endpoint).
  const ops = over.ops ?? composeOps(ctx, paths);
  const log = ctx.logger(config.logLevel, config.logFormat, ops.sink);
  logEvent(log, "agent.start", { ...versionInfo(), pid: process.pid, mode: config.mode });
  logEvent(log, "agent.config", { config: configToJson(config) });
  for (const warning of config.warnings) logEvent(log, "agent.config.warning", {}, warning, "warn");
  ops.startWatchdog(config.watchdog, log);
  const services = compose(ctx, paths, config, log, { ...over, ops });
  try {
    await runFlow(config, services, start);
  } finally {
    await services.http.close();
    // The flow ended here (done, or an error for PID 1's METAL_DONE / reboot / debug shell): last lines out, watchdog disarmed.
    await ops.beforeReboot("the end of the flow", log);
  }
}

export function registerRun(program: Command, ctx: Context, over: Partial<Services> = {}): void {
  addAgentOptions(
    program
      .command("run")
      .description("the whole boot flow (what runs as PID 1 or /init)")
      .option("--from <stage>", `start at this stage (${START_STAGES.join(", ")}): boot skips the bring-up, register and wait resume from handoff.json and the token file`),
  ).action(async (opts: AgentOptions & { from?: string }) => {
    await runAgent(ctx, opts, over);
  });
}
