/** METAL_WATCHDOG's value (src/ops/watchdog/ uses it). Pure. */
export interface WatchdogSetting {
  /** METAL_WATCHDOG=0/off turns it off; a duration (or 1/on for the default) sets the timeout. */
  readonly enabled: boolean;
  readonly timeoutS: number;
}

export const DEFAULT_WATCHDOG_TIMEOUT_S = 60;
