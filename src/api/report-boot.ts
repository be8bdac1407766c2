/**
 * After bring-up the agent tells the apiserver it booted: one provisioning event via
 * EventService/Send. A 200 with the event counted proves the apiserver answers and
 * accepts the machine token.
 */
import { AgentError } from "../errors.ts";
import type { ConnectClient } from "./client.ts";
import { EVENT_SERVICE, EventSendResponse } from "./messages.ts";

export interface BootReport {
  readonly latencyMs: number;
  readonly address: string | undefined;
  readonly attempts: number;
}

export function bootEvent(uuid: string, message: string, now: Date): { events: Record<string, { time: string; event: "Alive"; message: string }> } {
  return { events: { [uuid]: { time: now.toISOString(), event: "Alive", message } } };
}

export async function reportBooted(api: ConnectClient, uuid: string, message: string, now = new Date()): Promise<BootReport> {
  const r = await api.unary(`${EVENT_SERVICE}/Send`, bootEvent(uuid, message, now), EventSendResponse);
  if (r.message.failed.includes(uuid)) {
    throw new AgentError("api_error", `apiserver ${EVENT_SERVICE}/Send: the event for ${uuid} was not accepted (listed as failed)`, { uuid });
  }
  return { latencyMs: r.latencyMs, address: r.address, attempts: r.attempts };
}
