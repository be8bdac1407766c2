/**
 * The boot flow, stage by stage (stages.ts): network bring-up, config and token from
 * metal-boot, apiserver, image cache, hand-off, then (METAL_HANDOFF=builtin) the
 * provisioning flow: register, wait for an allocation, install. A stage not built
 * yet ends the flow with `not_built`; a stage whose `when` does not hold is skipped.
 */
import type { Config } from "../config/config.ts";
import { logEvent } from "../log/logger.ts";
import type { FlowDeps, Stage } from "./stage.ts";
import { STAGES } from "./stages.ts";
import type { FlowState } from "./state.ts";

export async function runFlow(config: Config, deps: FlowDeps, stages: readonly Stage[] = STAGES): Promise<FlowState> {
  const state: FlowState = { stageTimesMs: {} };
  const t0 = performance.now();
  for (const stage of stages) {
    if (stage.when && !stage.when(config)) continue;
    logEvent(deps.log, "agent.stage", { stage: stage.name }, stage.describe);
    await stage.run(config, deps, state);
    state.stageTimesMs[stage.name] = Math.round(performance.now() - t0);
  }
  logEvent(deps.log, "agent.done", { stageTimesMs: state.stageTimesMs });
  return state;
}
