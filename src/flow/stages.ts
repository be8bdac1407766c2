/**
 * The ordered stages of `run`. Each stage lives in its own file; a stage not built
 * yet stops the flow there with exit code 3 (not_built).
 */
import type { Stage } from "./stage.ts";
import { apiStage } from "./stage-api.ts";
import { bootStage } from "./stage-boot.ts";
import { handoffStage } from "./stage-handoff.ts";
import { imageStage } from "./stage-image.ts";
import { installStage } from "./stage-install.ts";
import { networkStage } from "./stage-network.ts";
import { registerStage } from "./stage-register.ts";
import { waitStage } from "./stage-wait.ts";

/** With METAL_HANDOFF=builtin the hand-off is followed by the provisioning stages (register, wait, install). */
export const STAGES: readonly Stage[] = [networkStage, bootStage, apiStage, imageStage, handoffStage, registerStage, waitStage, installStage];
