/**
 * LLDP neighbours -> the MachineNic neighbours of Register, mapped as metal-hammer
 * does (../shared/reference/metal-hammer/cmd/network/interfaces.go Neighbors: Mac =
 * port id, Identifier = port id, Name = port description, Hostname = system name).
 * The apiserver validates `mac` against the MAC regex (predefined_rules.proto
 * macaddress) and `name` as 2..128 chars (is_name): a switch whose port id is not a
 * MAC (subtype 5, interface name) makes Register fail there, as it did with
 * metal-hammer; we send what LLDP said and the refusal names it. Pure.
 */
import type { LldpNeighbour } from "../lldp/neighbour.ts";

/** A neighbour as a MachineNic (Register) and as the installer contract's neighbour: the four fields metal-hammer sets. */
export interface NeighbourNic {
  readonly mac: string;
  readonly identifier: string;
  readonly name: string;
  readonly hostname: string;
}

export function neighbourNic(n: LldpNeighbour): NeighbourNic {
  return { mac: n.portId, identifier: n.portId, name: n.portDescription, hostname: n.systemName };
}

/** Distinct switch names (neighbour system names) over all interfaces, sorted. */
export function switchesSeen(byInterface: ReadonlyMap<string, readonly LldpNeighbour[]>): string[] {
  return [...new Set([...byInterface.values()].flat().map((n) => n.systemName))].sort();
}
