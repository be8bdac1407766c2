/**
 * BootService/Register: the request is built from the inventory (pure, validated by
 * the RegisterRequest schema before it leaves), the answer checked against the uuid
 * we registered.
 */
import type { z } from "zod";
import type { ConnectClient } from "../api/client.ts";
import { BOOT_SERVICE, RegisterRequest, RegisterResponse } from "../api/messages.ts";
import { AgentError } from "../errors.ts";
import type { Inventory } from "../inventory/map.ts";

export const REGISTER = `${BOOT_SERVICE}/Register`;

export function registerRequest(uuid: string, inventory: Inventory, partition: string, metalHammerVersion: string): z.input<typeof RegisterRequest> {
  return RegisterRequest.parse({
    uuid,
    hardware: inventory.hardware,
    ...(inventory.bios ? { bios: inventory.bios } : {}),
    tags: [],
    metalHammerVersion,
    partition,
  });
}

export interface Registration {
  readonly uuid: string;
  readonly size: string;
  readonly partition: string;
  readonly latencyMs: number;
  readonly attempts: number;
}

export async function register(api: ConnectClient, request: z.input<typeof RegisterRequest>): Promise<Registration> {
  const r = await api.unary(REGISTER, request, RegisterResponse);
  if (r.message.uuid !== request.uuid) {
    throw new AgentError("api_error", `apiserver ${REGISTER}: answered uuid ${JSON.stringify(r.message.uuid)}, expected ${request.uuid}`, { uuid: request.uuid });
  }
  return { uuid: r.message.uuid, size: r.message.size, partition: r.message.partition, latencyMs: r.latencyMs, attempts: r.attempts };
}
