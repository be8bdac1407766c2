/**
 * The flow's entry to the watchdog: decide (plan.ts), open the real device, arm it.
 * Never throws: a watchdog that cannot be opened is logged and the agent runs without.
 */
import { existsSync } from "node:fs";
import { errnoName } from "../../platform/sys/errno.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { openWatchdogDevice, WATCHDOG_DEVICE, type WatchdogDevice } from "../../platform/sys/watchdog-device.ts";
import type { WatchdogSetting } from "../../config/watchdog-setting.ts";
import { planWatchdog } from "./watchdog-plan.ts";
import { Watchdog, type WatchdogClock } from "./watchdog.ts";

export interface WatchdogDeps {
  readonly log: Logger;
  readonly path?: string;
  readonly exists?: (path: string) => boolean;
  readonly open?: (path: string) => WatchdogDevice | number;
  readonly clock?: WatchdogClock;
}

export function startWatchdog(setting: WatchdogSetting, deps: WatchdogDeps): Watchdog {
  const path = deps.path ?? WATCHDOG_DEVICE;
  const plan = planWatchdog(setting, path, (deps.exists ?? existsSync)(path));
  if (plan.kind === "off") return Watchdog.off(plan.reason, deps.log, deps.clock);
  const dev = (deps.open ?? openWatchdogDevice)(path);
  if (typeof dev === "number") {
    logEvent(
      deps.log,
      "watchdog.error",
      { device: path, op: "open", errno: errnoName(dev) },
      `${path}: cannot open (${errnoName(dev)}); running without a hardware watchdog`,
      "warn",
    );
    return Watchdog.off(`cannot open ${path}: ${errnoName(dev)}`, deps.log, deps.clock);
  }
  return Watchdog.arm(dev, plan.path, plan.timeoutS, deps.log, deps.clock);
}
