/**
 * The ordered stages of `run`. Each stage lives in its own file; a stage not built
 * yet is listed as notBuilt() so the flow stops there with exit code 3.
 */
import { notBuilt, type Stage } from "./stage.ts";

export const STAGES: readonly Stage[] = [notBuilt("network", "IPv6 bring-up: SLAAC, DAD, RA DNS")];
