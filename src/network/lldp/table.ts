/**
 * The neighbours seen per interface, as 802.1AB's remote systems MIB keeps them: one
 * entry per MSAP (chassis id + port id) and interface, replaced by each new LLDPDU
 * from it, removed when its TTL runs out or a shutdown LLDPDU (TTL 0) arrives. Every
 * method takes the time; each change is returned so the shell can log it. No I/O.
 */
import type { LldpNeighbour } from "./neighbour.ts";
import type { Lldpdu } from "./lldpdu.ts";

export type TableChange = { readonly kind: "new" | "changed"; readonly neighbour: LldpNeighbour } | { readonly kind: "expired" | "shutdown"; readonly neighbour: LldpNeighbour };

interface Entry {
  readonly neighbour: LldpNeighbour;
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
    entries.set(key, { neighbour: n, expiresAt: now + du.ttl * 1000 });
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

/** The distinct switches (non-empty system names, as the apiserver counts neighbour hostnames), sorted. */
export function distinctSwitches(neighbours: ReadonlyMap<string, readonly LldpNeighbour[]>): string[] {
  const names = new Set<string>();
  for (const list of neighbours.values()) for (const n of list) if (n.systemName !== "") names.add(n.systemName);
  return [...names].sort();
}
