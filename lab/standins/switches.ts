/**
 * The apiserver stand-in's switches: a table of switches as metal-core registers them,
 * and the machine's switch connections computed as the v2 apiserver computes them on
 * Register. Pure (no I/O; the state is a value the caller keeps). Upstream, pinned in
 * docs/lldp.md:
 * - metal-core (metal-stack/metal-core@91421913, branch migrate-to-v2) registers a
 *   switch under its hostname (cmd/internal/core/register-switch.go:47,65); a SONiC
 *   port as Name `EthernetN`, Identifier = its CONFIG_DB alias
 *   (cmd/internal/switcher/sonic/sonic.go:196-221, default naming schema); a Cumulus
 *   port as Name `swpN` with its MAC and no Identifier (cumulus/cumulus.go:48-83).
 *   v2 requires a SwitchNic identifier (metal-stack/api@e6201fcb
 *   proto/metalstack/api/v2/switch.proto:66-72 is_name), so that Cumulus registration
 *   would be refused; the sources do not show what a v2 Cumulus switch sends. The
 *   stand-in's Cumulus switch therefore takes the MAC as Identifier ("mac", what v1's
 *   MAC fallback matched), or none ("none", metal-core as it is, which matches nothing).
 * - ConnectMachineWithSwitches (metal-stack/metal-apiserver@3f09705a
 *   pkg/repository/switch.go:296-443): the distinct neighbour hostnames, in order of
 *   appearance, must be exactly 2 (else failed_precondition); each is looked up as a
 *   switch ID (an unknown one fails Register); only name, identifier and hostname of
 *   each neighbour are kept (:385-396); each switch connects the machine
 *   (pkg/db/metal/switch.go:161-174 ConnectMachine, :396-411
 *   getPhysicalMachineConnections: neighbours filtered by Hostname == switch ID, keyed
 *   by Identifier, empty identifiers skipped (nic.go:45-54), matched to each switch
 *   nic's Identifier; no match connects nothing, unless the switch already holds
 *   connections of that machine: an error); both switches must hold the same number
 *   of connections (:407-411) and every port of the first must have its
 *   corresponding port on the second (:413-433; same OS here: the same name).
 *   Only a Register that passes every check changes the table (switch.go:435-443).
 */
import type { MachineNic } from "../../src/gen/metalstack/api/v2/machine_pb.ts";

export type SwitchOs = "sonic" | "cumulus";

export interface SwitchNic {
  readonly name: string;
  readonly identifier: string;
  readonly mac: string;
}

export interface Switch {
  /** The switch ID: its hostname (the System Name it sends over LLDP). */
  readonly id: string;
  readonly os: SwitchOs;
  readonly nics: readonly SwitchNic[];
  /** machine uuid -> the ports it is connected to. */
  readonly connections: ReadonlyMap<string, readonly SwitchNic[]>;
}

export type SwitchTable = ReadonlyMap<string, Switch>;

/** A port as the lab's switch has it: its name, the SONiC alias, the Cumulus MAC. */
export interface PortFacts {
  readonly name: string;
  readonly alias?: string;
  readonly mac?: string;
}

/** A switch as metal-core registers it; `cumulusIdentifier` says what a Cumulus port's Identifier is (see above). */
export function registeredSwitch(id: string, os: SwitchOs, ports: readonly PortFacts[], cumulusIdentifier: "mac" | "none" = "mac"): Switch {
  const nics = ports.map((p): SwitchNic => {
    if (os === "sonic") return { name: p.name, identifier: p.alias || p.name, mac: "" };
    const mac = (p.mac ?? "").toLowerCase();
    return { name: p.name, identifier: cumulusIdentifier === "mac" ? mac : "", mac };
  });
  return { id, os, nics, connections: new Map() };
}

export type ConnectResult =
  | { readonly ok: true; readonly table: SwitchTable; readonly connections: readonly { readonly switch: string; readonly port: string }[] }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** Neighbour name, identifier, hostname only, per machine NIC (switch.go:385-396). */
type Neigh = { readonly name: string; readonly identifier: string; readonly hostname: string };

function physicalConnections(sw: Switch, nics: readonly (readonly Neigh[])[]): SwitchNic[] {
  const out: SwitchNic[] = [];
  for (const neighbours of nics) {
    const byIdentifier = new Set(neighbours.filter((n) => n.hostname === sw.id && n.identifier !== "").map((n) => n.identifier));
    for (const nic of sw.nics) if (byIdentifier.has(nic.identifier)) out.push(nic);
  }
  return out;
}

function connectOne(sw: Switch, uuid: string, nics: readonly (readonly Neigh[])[]): { sw: Switch } | { error: string } {
  const found = physicalConnections(sw, nics);
  if (found.length < 1) {
    if (sw.connections.has(uuid))
      return {
        error: `failed to update machine connections for switch ${sw.id}: machine connection between machine ${uuid} and switch ${sw.id} exists in the database but not physically; if you are attempting migrate the machine from one rack to another delete it first`,
      };
    return { sw };
  }
  const connections = new Map(sw.connections);
  connections.set(uuid, found);
  return { sw: { ...sw, connections } };
}

/** Register's switch step for machine `uuid` with these NICs: the new table and the machine's connections, or the refusal. */
export function connectMachine(table: SwitchTable, uuid: string, machineNics: readonly Pick<MachineNic, "neighbors">[]): ConnectResult {
  const hostnames = [...new Set(machineNics.flatMap((n) => n.neighbors.map((x) => x.hostname)))];
  if (hostnames.length !== 2)
    return { ok: false, code: "failed_precondition", message: `machine ${uuid} is not connected to exactly two switches, found connections to switches [${hostnames.join(" ")}]` };
  const [a, b] = hostnames.map((h) => table.get(h));
  if (!a) return { ok: false, code: "not_found", message: `failed to add machine connections to switch ${hostnames[0]}: no switch with id "${hostnames[0]}" found` };
  if (!b) return { ok: false, code: "not_found", message: `failed to add machine connections to switch ${hostnames[1]}: no switch with id "${hostnames[1]}" found` };
  const nics = machineNics.map((n) => n.neighbors.map((x) => ({ name: x.name, identifier: x.identifier, hostname: x.hostname })));
  const r1 = connectOne(a, uuid, nics);
  if ("error" in r1) return { ok: false, code: "unknown", message: r1.error };
  const r2 = connectOne(b, uuid, nics);
  if ("error" in r2) return { ok: false, code: "unknown", message: r2.error };
  const c1 = r1.sw.connections.get(uuid) ?? [];
  const c2 = r2.sw.connections.get(uuid) ?? [];
  if (c1.length !== c2.length)
    return {
      ok: false,
      code: "failed_precondition",
      message: `machine connections must be identical on both switches but machine ${uuid} has ${c1.length} connections to switch ${a.id} and ${c2.length} connections to switch ${b.id}`,
    };
  // switch.go:413-433: every port of the first switch has its corresponding port on the second (same OS: the same name).
  const second = new Map<string, string>();
  for (const [m, ports] of r2.sw.connections) {
    for (const p of ports) {
      if (second.has(p.name)) return { ok: false, code: "unknown", message: `failed to map machine connections of switch ${b.id} by nic names` };
      second.set(p.name, m);
    }
  }
  if (a.os !== b.os) return { ok: false, code: "unimplemented", message: `the stand-in maps port names only between switches of the same OS (${a.id} ${a.os}, ${b.id} ${b.os})` };
  for (const p of c1) {
    if (!second.has(p.name))
      return {
        ok: false,
        code: "failed_precondition",
        message: `machine ${uuid} is connected to port ${p.name} on switch ${a.id} but not to the corresponding port ${p.name} of switch ${b.id}`,
      };
  }
  const next = new Map(table);
  next.set(a.id, r1.sw);
  next.set(b.id, r2.sw);
  return { ok: true, table: next, connections: [...c1.map((p) => ({ switch: a.id, port: p.name })), ...c2.map((p) => ({ switch: b.id, port: p.name }))] };
}

/** The machine's connections in the table, by switch ID order: "leaf01 Ethernet0, leaf02 Ethernet0" in the lab's words. */
export function machineConnections(table: SwitchTable, uuid: string): { readonly switch: string; readonly port: string }[] {
  return [...table.values()].sort((x, y) => x.id.localeCompare(y.id)).flatMap((s) => (s.connections.get(uuid) ?? []).map((p) => ({ switch: s.id, port: p.name })));
}

/** A switch table as JSON (the lab's --switches file, POST /_standin/switches): [{id, os, ports: [{name, alias?, mac?}]}]. */
export interface SwitchSpec {
  readonly id: string;
  readonly os: SwitchOs;
  readonly ports: readonly PortFacts[];
}

/** Parses switch specs; the error names the entry and what was expected. */
export function parseSwitchSpecs(raw: unknown, cumulusIdentifier: "mac" | "none" = "mac"): SwitchTable {
  if (!Array.isArray(raw)) throw new Error("switches: expected a JSON array of {id, os, ports}");
  const table = new Map<string, Switch>();
  raw.forEach((x: unknown, i) => {
    const s = x as Partial<SwitchSpec>;
    if (typeof s?.id !== "string" || s.id.length < 2) throw new Error(`switches[${i}].id: expected the switch's hostname`);
    if (s.os !== "sonic" && s.os !== "cumulus") throw new Error(`switches[${i}].os: expected "sonic" or "cumulus"`);
    if (!Array.isArray(s.ports) || s.ports.some((p) => typeof p?.name !== "string")) throw new Error(`switches[${i}].ports: expected [{name, alias?, mac?}]`);
    table.set(s.id, registeredSwitch(s.id, s.os, s.ports, cumulusIdentifier));
  });
  return table;
}

/** The table as JSON: each switch's nics and its machine connections. */
export function switchTableJson(table: SwitchTable): unknown {
  return [...table.values()].map((s) => ({ id: s.id, os: s.os, nics: s.nics, connections: Object.fromEntries([...s.connections].map(([m, ps]) => [m, ps.map((p) => p.name)])) }));
}
