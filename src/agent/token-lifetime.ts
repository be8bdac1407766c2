/**
 * Whether the machine token outlives the wait: pixie's token lives 3 days
 * (metal-stack/pixie@8b0f1da5 pixiecore/http.go:240-245), METAL_WAIT_TIMEOUT may be 7 days
 * and METAL_PLANNED_REBOOT off or up to 7+7 days. The wait ends at the smaller of
 * METAL_WAIT_TIMEOUT and the planned reboot (ops/reboot/planned.ts waitBound), whose latest is
 * its bound plus its whole jitter. Counted from now (the wipe before the wait only adds).
 * Pure.
 */
import { formatDuration } from "../config/duration.ts";
import type { PlannedRebootSetting } from "../config/planned-reboot.ts";

export interface TokenOutlived {
  readonly expiresAt: string;
  /** When the wait may end at the latest, and what ends it then. */
  readonly waitEndsBy: string;
  readonly endsBy: string;
  readonly message: string;
}

/** Undefined when the token's expiry is unknown or after the wait's latest end. */
export function tokenOutlived(nowMs: number, expiresAt: string | undefined, waitTimeoutMs: number, planned: PlannedRebootSetting | undefined): TokenOutlived | undefined {
  if (expiresAt === undefined) return undefined;
  const exp = Date.parse(expiresAt);
  if (!Number.isFinite(exp)) return undefined;
  const rebootMs = planned ? planned.boundMs + planned.jitterMs : Number.POSITIVE_INFINITY;
  const byReboot = rebootMs < waitTimeoutMs;
  const endsBy =
    byReboot && planned
      ? `the planned reboot (METAL_PLANNED_REBOOT=${formatDuration(planned.boundMs)}+${formatDuration(planned.jitterMs)})`
      : `METAL_WAIT_TIMEOUT=${formatDuration(waitTimeoutMs)}`;
  const endMs = nowMs + Math.min(rebootMs, waitTimeoutMs);
  if (exp >= endMs) return undefined;
  const waitEndsBy = new Date(endMs).toISOString();
  return {
    expiresAt,
    waitEndsBy,
    endsBy,
    message: `the machine token expires at ${expiresAt}, before the wait for an allocation may end (${waitEndsBy}, by ${endsBy}): it is renewed from metal-boot when the apiserver refuses it`,
  };
}
