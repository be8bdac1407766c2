/**
 * Whether to use the hardware watchdog, from METAL_WATCHDOG and whether the device
 * exists. Pure.
 */
import type { WatchdogSetting } from "../../config/watchdog-setting.ts";

export type WatchdogPlan = { readonly kind: "use"; readonly path: string; readonly timeoutS: number } | { readonly kind: "off"; readonly reason: string };

export function planWatchdog(setting: WatchdogSetting, path: string, present: boolean): WatchdogPlan {
  if (!setting.enabled) return { kind: "off", reason: "METAL_WATCHDOG=0" };
  if (!present) return { kind: "off", reason: `no ${path} (no watchdog driver loaded)` };
  return { kind: "use", path, timeoutS: setting.timeoutS };
}
