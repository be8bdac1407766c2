/**
 * The last things before reboot, poweroff or kexec: flush the remote log (bounded, so
 * a dead Loki cannot delay the reboot by more than `flushMs`) while the watchdog still
 * guards the agent, then disarm the watchdog with the magic close. Never throws.
 */
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import type { LogShipper } from "../remote-log/shipper.ts";
import type { Watchdog } from "../watchdog/watchdog.ts";

export const DEFAULT_FLUSH_MS = 3000;

export async function prepareForReboot(
  why: string,
  deps: { readonly log: Logger; readonly shipper?: LogShipper; readonly watchdog?: Watchdog; readonly flushMs?: number },
): Promise<void> {
  if (deps.shipper && deps.shipper.stats.state !== "off" && deps.shipper.stats.state !== "buffering") {
    const before = deps.shipper.stats;
    logEvent(deps.log, "remotelog.flush", { why, queued: before.queued, sent: before.sent, dropped: before.dropped }, `flushing ${before.queued} log line(s) before ${why}`);
    await deps.shipper.flush(deps.flushMs ?? DEFAULT_FLUSH_MS);
  }
  deps.watchdog?.close(why);
}
