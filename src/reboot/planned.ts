/**
 * The planned reboot while waiting for an allocation: after a bound plus a random
 * jitter the machine reboots, so a fleet never reboots at once and every machine picks
 * up a new agent within a day or two (metal-hammer: 24 h + up to 24 h,
 * reference/metal-hammer/cmd/root.go `kernel.AutoReboot(log, 1*24*time.Hour, 24*time.Hour, ...)`
 * and pkg/kernel AutoReboot: `after + rand.N(spread)`). Pure.
 */
import { parseDuration } from "../config/duration.ts";

export interface PlannedRebootSetting {
  readonly boundMs: number;
  /** The random part is uniform in [0, jitterMs). */
  readonly jitterMs: number;
}

export const DEFAULT_PLANNED_REBOOT: PlannedRebootSetting = { boundMs: 86_400_000, jitterMs: 86_400_000 };
const MIN_MS = 60_000;
const MAX_MS = 7 * 86_400_000;

/** METAL_PLANNED_REBOOT's raw value -> setting, undefined for off, "invalid" for anything else. */
export function planRebootSetting(v: string | null | undefined): PlannedRebootSetting | undefined | "invalid" {
  if (v === undefined) return DEFAULT_PLANNED_REBOOT;
  if (v === null) return "invalid";
  if (/^(off|0|no|false)$/i.test(v)) return undefined;
  const m = /^([^+]+)(?:\+(.+))?$/.exec(v.trim());
  if (!m) return "invalid";
  const bound = parseDuration(m[1]!);
  const jitter = m[2] === undefined ? 0 : parseDuration(m[2]);
  if (bound === undefined || jitter === undefined || bound < MIN_MS || bound > MAX_MS || jitter > MAX_MS || (jitter !== 0 && jitter < MIN_MS)) return "invalid";
  return { boundMs: bound, jitterMs: jitter };
}

/** When the planned reboot is due: `startMs + bound + floor(random() * jitter)`, random() in [0, 1). */
export function plannedRebootAt(startMs: number, s: PlannedRebootSetting, random: () => number): number {
  const r = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  return startMs + s.boundMs + Math.floor(r * s.jitterMs);
}

/** The wait's effective bound: the smaller of METAL_WAIT_TIMEOUT and the time left until the planned reboot. */
export function waitBound(nowMs: number, waitTimeoutMs: number, rebootAtMs: number | undefined): { readonly boundMs: number; readonly endsBy: "wait_timeout" | "planned_reboot" } {
  if (rebootAtMs === undefined || rebootAtMs - nowMs >= waitTimeoutMs) return { boundMs: waitTimeoutMs, endsBy: "wait_timeout" };
  return { boundMs: Math.max(0, rebootAtMs - nowMs), endsBy: "planned_reboot" };
}
