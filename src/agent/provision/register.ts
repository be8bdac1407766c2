/**
 * BootService/Register: the request is built from the inventory and the LLDP
 * neighbours (pure, protobuf-es message), the answer checked against the uuid we
 * registered. A refusal is explained in operator words: what the apiserver checks
 * (metal-apiserver pkg/repository/machine.go Register, switch.go
 * ConnectMachineWithSwitches, predefined_rules.proto) and what this machine sent.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectClient } from "../../clients/api/client.ts";
import { ConnectError, type ConnectCode } from "../../clients/api/connect-error.ts";
import { callUnary, procedureOf } from "../../clients/api/rpc.ts";
import { AgentError, toAgentError } from "../../errors.ts";
import { BootService, type BootServiceRegisterRequestSchema } from "../../gen/metalstack/infra/v2/boot_pb.ts";
import type { Inventory } from "../../machine/inventory/map.ts";
import type { LldpNeighbour } from "../../network/lldp/neighbour.ts";
import { neighbourNics, switchesSeen } from "./neighbours.ts";
import type { BmcRegisterFields } from "../../machine/bmc/register-fields.ts";

export const REGISTER = procedureOf(BootService.method.register);

export type RegisterInit = MessageInitShape<typeof BootServiceRegisterRequestSchema>;

/** `bmc`: Register's bmc and fru (src/machine/bmc/register-fields.ts); none when there is no BMC. */
export function registerRequest(
  uuid: string,
  inventory: Inventory,
  neighbours: ReadonlyMap<string, readonly LldpNeighbour[]>,
  partition: string,
  metalHammerVersion: string,
  bmc: Pick<BmcRegisterFields, "bmc" | "fru"> = {},
): RegisterInit {
  const h = inventory.hardware;
  // Neighbours that cannot pass validation are left out (the flow logs them: lldp.neighbour.omitted).
  const { nics } = neighbourNics(neighbours);
  return {
    uuid,
    hardware: {
      memory: BigInt(h.memory),
      disks: h.disks.map((d) => ({ name: d.name, size: BigInt(d.size) })),
      cpus: h.cpus.map((c) => ({ ...c })),
      gpus: h.gpus.map((g) => ({ ...g })),
      nics: h.nics.map((n) => ({
        mac: n.mac,
        name: n.name,
        identifier: n.identifier,
        vendor: n.vendor,
        model: n.model,
        speed: BigInt(n.speed),
        neighbors: (nics.get(n.name) ?? []).map((x) => ({ ...x })),
      })),
    },
    bios: { ...inventory.bios },
    ...(bmc.bmc ? { bmc: bmc.bmc } : {}),
    ...(bmc.fru ? { fru: bmc.fru } : {}),
    tags: [],
    metalHammerVersion,
    partition,
  };
}

export interface Registration {
  readonly uuid: string;
  readonly size: string;
  readonly partition: string;
  readonly latencyMs: number;
  readonly attempts: number;
}

/** The refusal in operator words; `seen` are the switch names LLDP reported. */
export function explainRefusal(connectCode: ConnectCode, message: string, seen: readonly string[]): string {
  const lldp = `LLDP saw: ${seen.length > 0 ? seen.join(", ") : "no switch"}`;
  if (/not connected to exactly two switches/.test(message)) return `machine is not connected to exactly two switches (${lldp})`;
  if (/bios is nil/.test(message)) return "the request has no bios";
  if (/hardware is nil/.test(message)) return "the request has no hardware";
  if (/macaddress|must be a valid macaddress/i.test(message)) return `a NIC or LLDP neighbour has a MAC the apiserver does not accept (${lldp}): ${message}`;
  if (/(^|\s)partition: must be within/.test(message))
    return `the partition is not 2..128 characters (it comes from metal-boot's partition, else METAL_PARTITION on the cmdline): ${message}`;
  // The neighbour's name is the port description, else the port id (is_name: 2..128 characters).
  if (/neighbors\[\d+\]\.name:/.test(message)) return `an LLDP neighbour's name (its port description, else its port id) is not 2..128 characters (${lldp}): ${message}`;
  if (connectCode === "permission_denied") return `the machine token is not for this machine: ${message}`;
  return `${connectCode}: ${message}`;
}

export async function register(api: Pick<ConnectClient, "unary">, request: RegisterInit, seen: readonly string[] = []): Promise<Registration> {
  let r;
  try {
    r = await callUnary(api, BootService.method.register, request);
  } catch (e) {
    const err = toAgentError(e);
    if (!(err instanceof ConnectError)) throw err;
    const why = explainRefusal(err.connectCode, err.connectMessage, seen);
    throw new ConnectError(`apiserver refused Register: ${why}`, err.connectCode, err.connectMessage, { ...err.details, uuid: request.uuid }, { cause: e });
  }
  if (r.message.uuid !== request.uuid) {
    throw new AgentError("api_error", `apiserver ${REGISTER}: answered uuid ${JSON.stringify(r.message.uuid)}, expected ${request.uuid}`, { uuid: request.uuid });
  }
  return { uuid: r.message.uuid, size: r.message.size, partition: r.message.partition, latencyMs: r.latencyMs, attempts: r.attempts };
}

export { switchesSeen };
