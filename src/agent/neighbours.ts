/**
 * LLDP neighbours -> the MachineNic neighbours of Register, per field as the v2
 * apiserver reads them (docs/lldp.md "Which TLV goes into which field" has the reason
 * for each, with the upstream lines):
 * - hostname   <- System Name: matched against the switch's ID (its hostname);
 * - identifier <- the Port ID value: matched against the switch nic's Identifier
 *   (SONiC: the port's alias, which lldpmgrd announces as a locally assigned Port ID);
 * - name       <- the Port Description (SONiC `EthernetN`, Cumulus `swpN`), else the
 *   Port ID string: not matched, but validated as 2..128 characters;
 * - mac        <- the Port ID when its subtype is MAC (3), else the Chassis ID when its
 *   subtype is MAC (4): not matched (the apiserver drops it before matching), but
 *   validated with the MAC rule.
 * A neighbour that cannot pass validation (no MAC anywhere, no usable name, an
 * identifier over 128 characters) is left out, with the reason, for the caller to log:
 * sending it would make the whole Register fail. Pure.
 */
import { neighbourMac, type LldpNeighbour } from "../network/lldp/neighbour.ts";

/** A neighbour as a MachineNic (Register) and as the installer contract's neighbour. */
export interface NeighbourNic {
  readonly mac: string;
  readonly identifier: string;
  readonly name: string;
  readonly hostname: string;
}

/** A neighbour left out of Register, and why (the validation rule it could not pass). */
export interface OmittedNeighbour {
  readonly interface: string;
  readonly systemName: string;
  readonly portId: string;
  readonly reason: string;
}

export type NeighbourMapping = { readonly ok: true; readonly nic: NeighbourNic; readonly macFrom: "port id" | "chassis id" } | { readonly ok: false; readonly reason: string };

/** metal-stack-api proto/metalstack/api/v2/predefined_rules.proto is_name: 2..128 characters. */
const isName = (s: string): boolean => s.length >= 2 && s.length <= 128;

export function mapNeighbour(n: LldpNeighbour): NeighbourMapping {
  const mac = neighbourMac(n);
  if (!mac)
    return {
      ok: false,
      reason: `neither its port id (subtype ${n.portIdSubtype}) nor its chassis id (subtype ${n.chassisIdSubtype}) is a MAC address, and the apiserver requires a MAC for a neighbour's mac`,
    };
  if (n.portId.length > 128) return { ok: false, reason: `its port id is ${n.portId.length} characters, the apiserver takes an identifier of at most 128` };
  const name = isName(n.portDescription) ? n.portDescription : isName(n.portId) ? n.portId : undefined;
  if (name === undefined) return { ok: false, reason: "neither its port description nor its port id is 2..128 characters, as the apiserver requires for a neighbour's name" };
  return { ok: true, nic: { mac: mac.mac, identifier: n.portId, name, hostname: n.systemName }, macFrom: mac.from };
}

/** The neighbour as Register sends it, or undefined when it is left out (mapNeighbour says why). */
export function neighbourNic(n: LldpNeighbour): NeighbourNic | undefined {
  const m = mapNeighbour(n);
  return m.ok ? m.nic : undefined;
}

/** Every interface's neighbours mapped; the ones left out, with their reasons. */
export function neighbourNics(byInterface: ReadonlyMap<string, readonly LldpNeighbour[]>): {
  readonly nics: ReadonlyMap<string, readonly NeighbourNic[]>;
  readonly omitted: readonly OmittedNeighbour[];
} {
  const nics = new Map<string, NeighbourNic[]>();
  const omitted: OmittedNeighbour[] = [];
  for (const [ifname, ns] of byInterface) {
    const out: NeighbourNic[] = [];
    for (const n of ns) {
      const m = mapNeighbour(n);
      if (m.ok) out.push(m.nic);
      else omitted.push({ interface: ifname, systemName: n.systemName, portId: n.portId, reason: m.reason });
    }
    nics.set(ifname, out);
  }
  return { nics, omitted };
}

/** Distinct switch names (neighbour system names) over all interfaces, sorted. */
export function switchesSeen(byInterface: ReadonlyMap<string, readonly LldpNeighbour[]>): string[] {
  return [...new Set([...byInterface.values()].flat().map((n) => n.systemName))].sort();
}
