/**
 * Which interfaces the agent brings up. Pure: takes the kernel's links and a
 * predicate "has a `device` link in sysfs" (net-sysfs.ts gives the real one, tests a
 * fake root). Without an allow-list: physical NICs only (a `device` link; never lo,
 * bridges, bonds, veths, tunnels, VLANs). With METAL_NICS: exactly the listed
 * names or MACs (how tests select veths). Nothing else is touched.
 */
import type { NicSelector } from "../../config/params.ts";
import { IFF_LOOPBACK } from "../netlink/constants.ts";

export interface LinkFacts {
  readonly ifindex: number;
  readonly name: string;
  readonly mac: string;
  readonly flags: number;
  /** IFLA_INFO_KIND: "veth", "bridge", "bond", "vlan", "tun", ... (absent for plain hardware). */
  readonly kind: string | undefined;
}

export interface Selection {
  readonly selected: readonly LinkFacts[];
  /** Why each other link was left alone (for the net.select log line). */
  readonly skipped: readonly { readonly name: string; readonly why: string }[];
}

const matches = (l: LinkFacts, s: NicSelector) => (s.kind === "name" ? s.name === l.name : s.mac === l.mac.toLowerCase());

export function selectInterfaces(links: readonly LinkFacts[], selectors: readonly NicSelector[], hasDevice: (name: string) => boolean): Selection {
  const selected: LinkFacts[] = [];
  const skipped: { name: string; why: string }[] = [];
  for (const l of links) {
    if (selectors.length > 0) {
      if (selectors.some((s) => matches(l, s))) selected.push(l);
      else skipped.push({ name: l.name, why: "not in METAL_NICS" });
      continue;
    }
    if (l.flags & IFF_LOOPBACK) skipped.push({ name: l.name, why: "loopback" });
    else if (l.kind !== undefined) skipped.push({ name: l.name, why: `virtual (${l.kind})` });
    else if (!hasDevice(l.name)) skipped.push({ name: l.name, why: "no device link in sysfs (not a physical NIC)" });
    else selected.push(l);
  }
  return { selected, skipped };
}

/** Selectors that matched nothing (a typo in METAL_NICS is worth a clear line). */
export function unmatchedSelectors(links: readonly LinkFacts[], selectors: readonly NicSelector[]): NicSelector[] {
  return selectors.filter((s) => !links.some((l) => matches(l, s)));
}
