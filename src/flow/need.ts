import { AgentError } from "../errors.ts";
import type { FlowState } from "./state.ts";

/** What a stage needs from an earlier one; a flow started past that stage fails clearly. */
export function need<K extends keyof FlowState>(state: FlowState, key: K, stage: string, from: string): NonNullable<FlowState[K]> {
  const v = state[key];
  if (v === undefined || v === null) throw new AgentError("internal", `stage "${stage}" needs the result of stage "${from}", which did not run`, { stage, from });
  return v as NonNullable<FlowState[K]>;
}
