/**
 * The ordered stages of `run`. Each stage lives in its own file; a stage not built
 * yet is listed as notBuilt() so the flow stops there with exit code 3.
 */
import type { Stage } from "./stage.ts";
import { apiStage } from "./stage-api.ts";
import { bootStage } from "./stage-boot.ts";
import { handoffStage } from "./stage-handoff.ts";
import { imageStage } from "./stage-image.ts";
import { networkStage } from "./stage-network.ts";

export const STAGES: readonly Stage[] = [networkStage, bootStage, apiStage, imageStage, handoffStage];
