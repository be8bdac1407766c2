/**
 * METAL_PLANNED_REBOOT's value: a bound plus a random jitter (`24h+24h`), or off
 * (src/ops/reboot/planned.ts computes the deadline from it). Pure.
 */
import { parseDuration } from "./duration.ts";

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
