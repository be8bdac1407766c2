/**
 * The neighbours seen per interface, as 802.1AB's remote systems MIB keeps them: one
 * entry per MSAP (chassis id + port id) and interface, replaced by each new LLDPDU
 * from it, removed when its TTL runs out or a shutdown LLDPDU (TTL 0) arrives. Every
 * method takes the time; each change is returned so the shell can log it. No I/O.
 *
 * Bounded: a switch port has one neighbour, so an interface keeps at most
 * MAX_NEIGHBOURS_PER_INTERFACE; a new one beyond that replaces the one heard from least
 * recently. A TTL is honoured up to MAX_TTL_SECONDS. Before, frames with a new chassis
 * id each and TTL 65535 grew the table (and Register's neighbours) without end.
 */
import type { LldpNeighbour } from "./neighbour.ts";
import type { Lldpdu } from "./lldpdu.ts";

/** `replaced`: dropped for a newer neighbour on an interface that holds its maximum. */
export type TableChange =
  | { readonly kind: "new" | "changed"; readonly neighbour: LldpNeighbour }
  | { readonly kind: "expired" | "shutdown" | "replaced"; readonly neighbour: LldpNeighbour };

/** A real port has one neighbour; a few more cover a switch swapped on the cable, or a hub. */
export const MAX_NEIGHBOURS_PER_INTERFACE = 4;
/**
 * The longest TTL honoured (s): lldpd sends 120 s (30 s x hold 4), SONiC 40 s; 802.1AB
 * allows 65535. A neighbour asking for more is dropped this long after its last frame
 * (a switch that sends at least every 5 min is never dropped by it).
 */
export const MAX_TTL_SECONDS = 300;

interface Entry {
  readonly neighbour: LldpNeighbour;
  /** When its last LLDPDU arrived (ms): the least recent is replaced first. */
  readonly heardAt: number;
  readonly expiresAt: number;
}

/** What metal-hammer reads from an LLDPDU (metal-stack/metal-hammer@ec148e3 pkg/lldp/client.go:96 Neighbors). */
export function toNeighbour(ifname: string, du: Lldpdu): LldpNeighbour {
  return {
    interface: ifname,
    chassisId: du.chassisId.value,
    chassisIdSubtype: du.chassisId.subtype,
    portId: du.portId.value,
    portIdSubtype: du.portId.subtype,
    portDescription: du.portDescription ?? "",
    systemName: du.systemName ?? "",
    ttlSeconds: du.ttl,
    managementAddresses: du.managementAddresses.map((m) => m.address),
  };
}

const msap = (n: LldpNeighbour): string => `${n.chassisIdSubtype}/${n.chassisId}|${n.portIdSubtype}/${n.portId}`;
const sameFacts = (a: LldpNeighbour, b: LldpNeighbour): boolean => JSON.stringify({ ...a, ttlSeconds: 0 }) === JSON.stringify({ ...b, ttlSeconds: 0 });

export class NeighbourTable {
  private readonly byIf = new Map<string, Map<string, Entry>>();

  /** Takes one LLDPDU received on `ifname` at `now` (ms); returns what changed (expiries included). */
  update(ifname: string, du: Lldpdu, now: number): TableChange[] {
    const changes = this.expire(now);
    const n = toNeighbour(ifname, du);
    const key = msap(n);
    let entries = this.byIf.get(ifname);
    const old = entries?.get(key);
    if (du.ttl === 0) {
      if (old) {
        entries?.delete(key);
        if (entries?.size === 0) this.byIf.delete(ifname);
        changes.push({ kind: "shutdown", neighbour: old.neighbour });
      }
      return changes;
    }
    if (!entries) {
      entries = new Map();
      this.byIf.set(ifname, entries);
    }
    if (!old && entries.size >= MAX_NEIGHBOURS_PER_INTERFACE) changes.push(replaceLeastRecent(entries));
    entries.set(key, { neighbour: n, heardAt: now, expiresAt: now + Math.min(du.ttl, MAX_TTL_SECONDS) * 1000 });
    if (!old) changes.push({ kind: "new", neighbour: n });
    else if (!sameFacts(old.neighbour, n)) changes.push({ kind: "changed", neighbour: n });
    return changes;
  }

  /** Drops every entry whose TTL ran out by `now`. */
  expire(now: number): TableChange[] {
    const changes: TableChange[] = [];
    for (const [ifname, entries] of this.byIf) {
      for (const [key, e] of entries) {
        if (e.expiresAt > now) continue;
        entries.delete(key);
        changes.push({ kind: "expired", neighbour: e.neighbour });
      }
      if (entries.size === 0) this.byIf.delete(ifname);
    }
    return changes;
  }

  /** Interfaces that have neighbours, each with its neighbours (call expire first). */
  snapshot(): Map<string, readonly LldpNeighbour[]> {
    return new Map([...this.byIf].map(([ifname, entries]) => [ifname, [...entries.values()].map((e) => e.neighbour)]));
  }
}

/** Removes the entry heard from least recently (the first on a tie: the older); its change. */
function replaceLeastRecent(entries: Map<string, Entry>): TableChange {
  let oldest: [string, Entry] | undefined;
  for (const kv of entries) if (!oldest || kv[1].heardAt < oldest[1].heardAt) oldest = kv;
  const [key, e] = oldest as [string, Entry];
  entries.delete(key);
  return { kind: "replaced", neighbour: e.neighbour };
}

/** The distinct switches (non-empty system names, as the apiserver counts neighbour hostnames), sorted. */
export function distinctSwitches(neighbours: ReadonlyMap<string, readonly LldpNeighbour[]>): string[] {
  const names = new Set<string>();
  for (const list of neighbours.values()) for (const n of list) if (n.systemName !== "") names.add(n.systemName);
  return [...names].sort();
}
