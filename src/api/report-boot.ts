/**
 * Provisioning events via EventService/Send. After bring-up the agent reports that it
 * booted ("Alive": a 200 with the event counted proves the apiserver answers and
 * accepts the machine token); the provisioning flow reports its steps ("Preparing",
 * "Registering", "Waiting") the same way.
 */
import { AgentError } from "../errors.ts";
import type { ConnectClient } from "./client.ts";
import { EVENT_SERVICE, EventSendResponse, type PROVISIONING_EVENTS } from "./messages.ts";

export type ProvisioningEventName = (typeof PROVISIONING_EVENTS)[number];

export interface BootReport {
  readonly latencyMs: number;
  readonly address: string | undefined;
  readonly attempts: number;
}

export function provisioningEvent<E extends ProvisioningEventName>(uuid: string, event: E, message: string, now: Date): { events: Record<string, { time: string; event: E; message: string }> } {
  return { events: { [uuid]: { time: now.toISOString(), event, message } } };
}

export const bootEvent = (uuid: string, message: string, now: Date) => provisioningEvent(uuid, "Alive", message, now);

/** Sends one event; an answer that lists the uuid as failed is an `api_error`. */
export async function sendEvent(api: ConnectClient, uuid: string, event: ProvisioningEventName, message: string, now = new Date()): Promise<BootReport> {
  const r = await api.unary(`${EVENT_SERVICE}/Send`, provisioningEvent(uuid, event, message, now), EventSendResponse);
  if (r.message.failed.includes(uuid)) {
    throw new AgentError("api_error", `apiserver ${EVENT_SERVICE}/Send: the ${event} event for ${uuid} was not accepted (listed as failed)`, { uuid, event });
  }
  return { latencyMs: r.latencyMs, address: r.address, attempts: r.attempts };
}

export const reportBooted = (api: ConnectClient, uuid: string, message: string, now = new Date()): Promise<BootReport> => sendEvent(api, uuid, "Alive", message, now);
