/**
 * The boot flow, stage by stage (stages.ts): network bring-up, config and token from
 * metal-boot, apiserver, image cache, hand-off. A stage not built yet ends the flow
 * with `not_built`.
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
    logEvent(deps.log, "agent.stage", { stage: stage.name }, stage.describe);
    await stage.run(config, deps, state);
    state.stageTimesMs[stage.name] = Math.round(performance.now() - t0);
  }
  logEvent(deps.log, "agent.done", { stageTimesMs: state.stageTimesMs });
  return state;
}
