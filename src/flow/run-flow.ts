/**
 * The boot flow, stage by stage: network bring-up, config and token from metal-boot,
 * apiserver, image cache, hand-off. Each stage is a function of what the previous
 * ones produced; a stage that is not built yet ends the flow with `not_built`.
 */
import type { Config } from "../config/config.ts";
import { AgentError } from "../errors.ts";
import { logEvent, type Logger } from "../log/logger.ts";
import type { SecretSet } from "../log/redact.ts";

export interface FlowDeps {
  readonly log: Logger;
  readonly secrets: SecretSet;
}

export interface Stage {
  readonly name: string;
  readonly describe: string;
  run(config: Config, deps: FlowDeps): Promise<void>;
}

const notBuilt = (name: string, describe: string): Stage => ({
  name,
  describe,
  run: async () => {
    throw new AgentError("not_built", `stage "${name}" (${describe}) is not built yet`, { stage: name });
  },
});

export const STAGES: readonly Stage[] = [notBuilt("network", "IPv6 bring-up: SLAAC, DAD, RA DNS")];

export async function runFlow(config: Config, deps: FlowDeps, stages: readonly Stage[] = STAGES): Promise<void> {
  for (const stage of stages) {
    logEvent(deps.log, "agent.stage", { stage: stage.name }, stage.describe);
    await stage.run(config, deps);
  }
  logEvent(deps.log, "agent.done", {});
}
