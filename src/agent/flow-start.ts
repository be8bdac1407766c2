/**
 * Where `run` starts, decided once before the first stage: a fresh boot (network
 * bring-up first), at "boot" (the bring-up was done by hand: the clock, metal-boot and
 * the rest follow), or resumed at "register" or "wait" from what an earlier run left
 * in --run-dir (handoff.json and the token file: src/agent/resume.ts). Pure.
 */
import type { StageName } from "../config/stages.ts";
import { AgentError } from "../platform/errors.ts";

/** Where `run --from` may start: each of these can start on its own. */
export const START_STAGES = ["network", "boot", "register", "wait"] as const satisfies readonly StageName[];
export type StartStage = (typeof START_STAGES)[number];

export type Start = { readonly kind: "fresh" } | { readonly kind: "boot" } | { readonly kind: "resume"; readonly at: "register" | "wait" };

export const FRESH: Start = { kind: "fresh" };

/** `--from` (absent: a fresh boot) as a Start; any other value is a usage error naming the valid ones. */
export function decideStart(from: string | undefined): Start {
  switch (from) {
    case undefined:
    case "network":
      return FRESH;
    case "boot":
      return { kind: "boot" };
    case "register":
    case "wait":
      return { kind: "resume", at: from };
  }
  throw new AgentError(
    "usage",
    `--from ${JSON.stringify(from)}: expected one of ${START_STAGES.join(", ")} (register and wait resume from handoff.json and the token file in --run-dir)`,
    {},
  );
}
