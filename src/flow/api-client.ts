/** The Connect client for the apiserver metal-boot named, with the machine token (stages api, register, wait). */
import { ConnectClient } from "../api/client.ts";
import type { Config } from "../config/config.ts";
import { need } from "./need.ts";
import { services } from "./services.ts";
import type { FlowDeps } from "./stage.ts";
import type { BootSummary, FlowState } from "./state.ts";

export function apiClient(config: Config, deps: FlowDeps, state: FlowState, stage: string): { api: ConnectClient; boot: BootSummary } {
  const boot = need(state, "boot", stage, "boot");
  return { api: new ConnectClient(services(config, deps).http, boot.apiserverUrl, boot.token.reveal()), boot };
}

/** The stages of the built-in provisioning flow run only with METAL_HANDOFF=builtin. */
export const builtinOnly = (config: Config): boolean => config.handoff.kind === "builtin";
