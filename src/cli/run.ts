import type { Command } from "commander";
import { configToJson } from "../config/config.ts";
import { AgentError } from "../errors.ts";
import { runFlow } from "../flow/run-flow.ts";
import { STAGES } from "../flow/stages.ts";
import { logEvent } from "../log/logger.ts";
import { versionInfo } from "../version.ts";
import { addAgentOptions, agentConfig, agentServices, type AgentOptions } from "./agent-options.ts";
import type { Context } from "./context.ts";

/** `run`'s body, also what PID 1 runs under the init supervisor (src/init/). Throws AgentError. */
export async function runAgent(ctx: Context, opts: AgentOptions & { from?: string }): Promise<void> {
  const config = await agentConfig(ctx, opts);
  const start = opts.from === undefined ? 0 : STAGES.findIndex((s) => s.name === opts.from);
  if (start < 0) throw new AgentError("usage", `--from ${JSON.stringify(opts.from)}: expected one of ${STAGES.map((s) => s.name).join(", ")}`, {});
  const log = ctx.logger(config.logLevel);
  logEvent(log, "agent.start", { ...versionInfo(), pid: process.pid, mode: config.mode });
  logEvent(log, "agent.config", { config: configToJson(config) });
  for (const warning of config.warnings) logEvent(log, "agent.config.warning", {}, warning, "warn");
  await runFlow(config, { log, secrets: ctx.secrets, services: agentServices(ctx, opts) }, STAGES.slice(start));
}

export function registerRun(program: Command, ctx: Context): void {
  addAgentOptions(
    program
      .command("run")
      .description("the whole boot flow (what runs as PID 1 or /init)")
      .option("--from <stage>", `start at this stage, the earlier ones done by hand (${STAGES.map((s) => s.name).join(", ")})`),
  ).action(async (opts: AgentOptions & { from?: string }) => {
    await runAgent(ctx, opts);
  });
}
