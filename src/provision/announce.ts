/** Sends one provisioning event (EventService/Send) and logs it as provision.event. */
import type { ConnectClient } from "../api/client.ts";
import { sendEvent, type ProvisioningEventName } from "../api/report-boot.ts";
import { logEvent, type Logger } from "../log/logger.ts";

export async function announce(api: ConnectClient, log: Logger, uuid: string, event: ProvisioningEventName, message: string): Promise<void> {
  const r = await sendEvent(api, uuid, event, message);
  logEvent(log, "provision.event", { uuid, provisioningEvent: event, latencyMs: r.latencyMs, attempts: r.attempts }, `${event}: ${message}`);
}
