/**
 * The boot flow's stages, in the order a fresh boot runs them (src/agent/run-flow.ts):
 * one closed list shared by the flow (each stage's name in `agent.stage`, status.json
 * and the watchdog's hold) and by METAL_DEBUG_HANG's validation, so a misspelt stage
 * is a usage error instead of a hang that never comes. It lives here, below the flow,
 * because the configuration validates against it.
 */
export const STAGES = ["network", "clock", "boot", "api", "image", "handoff", "register", "wipe", "wait", "layout", "install", "installed", "kexec"] as const;
export type StageName = (typeof STAGES)[number];

/** Whether `s` names a stage of the flow. */
export const isStageName = (s: string): s is StageName => (STAGES as readonly string[]).includes(s);
