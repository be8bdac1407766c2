/**
 * The planned reboot while waiting for an allocation: after a bound plus a random
 * jitter the machine reboots, so a fleet never reboots at once and every machine picks
 * up a new agent within a day or two (metal-hammer: 24 h + up to 24 h,
 * metal-stack/metal-hammer@ec148e3 cmd/root.go:71 `kernel.AutoReboot(log, 1*24*time.Hour, 24*time.Hour, ...)`
 * and pkg/kernel/kernel.go:126 AutoReboot: `after + rand.N(spread)`). Pure.
 */
import { formatDuration } from "../../config/duration.ts";
import type { PlannedRebootSetting } from "../../config/planned-reboot.ts";

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

/** The planned reboot of one wait: its setting, when it is due and the reason its due line gives. */
export interface PlannedReboot extends PlannedRebootSetting {
  readonly atMs: number;
  /** `atMs` as ISO 8601 (the log lines and status.json). */
  readonly at: string;
  /** METAL_PLANNED_REBOOT as given, e.g. `METAL_PLANNED_REBOOT=24h+24h`. */
  readonly setting: string;
  readonly reason: string;
}

/** The planned reboot for a wait that starts at `startMs`; undefined when METAL_PLANNED_REBOOT=off. Pure. */
export function planReboot(startMs: number, s: PlannedRebootSetting | undefined, random: () => number): PlannedReboot | undefined {
  if (!s) return undefined;
  const atMs = plannedRebootAt(startMs, s, random);
  const setting = `METAL_PLANNED_REBOOT=${formatDuration(s.boundMs)}+${formatDuration(s.jitterMs)}`;
  return { ...s, atMs, at: new Date(atMs).toISOString(), setting, reason: `no allocation came before the planned reboot (${setting}): rebooting to pick up the current agent` };
}
