/**
 * BootService/Register: the request is built from the inventory and the LLDP
 * neighbours (pure, protobuf-es message), the answer checked against the uuid we
 * registered. A refusal is explained in operator words: what the apiserver checks
 * (metal-apiserver pkg/repository/machine.go Register, switch.go
 * ConnectMachineWithSwitches, predefined_rules.proto) and what this machine sent.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectClient } from "../clients/api/connect-client.ts";
import { ConnectError, type ConnectCode } from "../clients/api/connect-error.ts";
import { callUnary, procedureOf } from "../clients/api/rpc.ts";
import { AgentError, toAgentError } from "../platform/errors.ts";
import { MachineNicSchema, type MachineNic } from "../gen/metalstack/api/v2/machine_pb.ts";
import { BootService, BootServiceRegisterRequestSchema, type BootServiceRegisterRequest } from "../gen/metalstack/infra/v2/boot_pb.ts";
import type { Inventory, Nic } from "../machine/inventory/map.ts";
import type { LldpNeighbour } from "../network/lldp/neighbour.ts";
import { neighbourNics, switchesSeen } from "./neighbours.ts";
import type { BmcRegisterFields } from "../machine/bmc/register-fields.ts";

export const REGISTER = procedureOf(BootService.method.register);

export type RegisterInit = MessageInitShape<typeof BootServiceRegisterRequestSchema>;

/**
 * The inventory's NICs as Register sends them (the generated MachineNic), each with its
 * LLDP neighbours as MachineNics (neighbours.ts; a neighbour that cannot pass validation
 * is left out, the flow logs it: lldp.neighbour.omitted). The installer contract reads
 * these same messages (machine-details.yaml nics). Pure.
 */
export function machineNics(nics: readonly Nic[], neighbours: ReadonlyMap<string, readonly LldpNeighbour[]>): MachineNic[] {
  const mapped = neighbourNics(neighbours).nics;
  return nics.map((n) =>
    create(MachineNicSchema, {
      mac: n.mac,
      name: n.name,
      identifier: n.identifier,
      vendor: n.vendor,
      model: n.model,
      speed: BigInt(n.speed),
      neighbors: (mapped.get(n.name) ?? []).map((x) => ({ ...x })),
    }),
  );
}

/** The request as a message: what the flow keeps of it (its NICs) is what was sent. `bmc`: Register's bmc and fru (src/machine/bmc/register-fields.ts); none when there is no BMC. */
export function registerRequest(
  uuid: string,
  inventory: Inventory,
  neighbours: ReadonlyMap<string, readonly LldpNeighbour[]>,
  partition: string,
  metalHammerVersion: string,
  bmc: Pick<BmcRegisterFields, "bmc" | "fru"> = {},
): BootServiceRegisterRequest {
  const h = inventory.hardware;
  return create(BootServiceRegisterRequestSchema, {
    uuid,
    hardware: {
      memory: BigInt(h.memory),
      disks: h.disks.map((d) => ({ name: d.name, size: BigInt(d.size) })),
      cpus: h.cpus.map((c) => ({ ...c })),
      gpus: h.gpus.map((g) => ({ ...g })),
      nics: machineNics(h.nics, neighbours),
    },
    bios: { ...inventory.bios },
    ...(bmc.bmc ? { bmc: bmc.bmc } : {}),
    ...(bmc.fru ? { fru: bmc.fru } : {}),
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
