/**
 * The machine's uplinks from one full rtnetlink dump (links, IPv6 addresses, IPv6
 * routes): a selected NIC is an uplink while it has carrier, a usable global address
 * (DAD passed, not deprecated) and a default route from a router (an RA) in the main
 * table. Ordered as the kernel would pick among their default routes: the RA's router
 * preference (high, medium, low; RFC 4191), then the selection's order. Pure: the
 * shell (uplink-table.ts) dumps and hands the bodies in.
 */
import * as K from "../netlink/constants.ts";
import type { Body } from "../netlink/message.ts";

/** One NIC the agent can send through, bound to its address (docs/network.md "Uplinks"). */
export interface Uplink {
  readonly name: string;
  readonly ifindex: number;
  /** The NIC's usable global address (the source the HTTP clients bind to). */
  readonly address: string;
  /** The default router (link-local) the NIC's RA gave. */
  readonly router: string;
  /** The router preference of that RA: "high" | "medium" | "low". */
  readonly preference: RouterPreference;
}

export type RouterPreference = "high" | "medium" | "low";

/** RTA_PREF holds the RA's two preference bits (RFC 4191): 01 high, 00 medium, 11 low. */
export function routerPreference(pref: number | undefined): RouterPreference {
  if (pref === 1) return "high";
  if (pref === 3) return "low";
  return "medium";
}
const RANK: Readonly<Record<RouterPreference, number>> = { high: 0, medium: 1, low: 2 };

const UNUSABLE = K.IFA_F_TENTATIVE | K.IFA_F_DADFAILED | K.IFA_F_DEPRECATED;

/** The uplinks among the selected NIC names (in their order), from a full dump. */
export function findUplinks(bodies: readonly Body[], selected: readonly string[]): Uplink[] {
  const out: { uplink: Uplink; order: number }[] = [];
  selected.forEach((name, order) => {
    const link = bodies.find((b) => b.kind === "link" && b.op === "new" && b.name === name);
    if (link?.kind !== "link") return;
    const carrier = (link.flags & K.IFF_UP) !== 0 && (link.carrier ?? (link.flags & K.IFF_LOWER_UP) !== 0);
    if (!carrier) return;
    const addr = bodies.find(
      (b) =>
        b.kind === "addr" && b.op === "new" && b.family === K.AF_INET6 && b.ifindex === link.ifindex && b.scope === K.RT_SCOPE_UNIVERSE && (b.flags & UNUSABLE) === 0 && b.address,
    );
    const route = bodies.find(
      (b) => b.kind === "route" && b.op === "new" && b.family === K.AF_INET6 && b.dstLen === 0 && b.table === K.RT_TABLE_MAIN && b.oif === link.ifindex && b.gateway !== undefined,
    );
    if (addr?.kind !== "addr" || !addr.address || route?.kind !== "route" || !route.gateway) return;
    out.push({ uplink: { name, ifindex: link.ifindex, address: addr.address, router: route.gateway, preference: routerPreference(route.pref) }, order });
  });
  return out.sort((a, b) => RANK[a.uplink.preference] - RANK[b.uplink.preference] || a.order - b.order).map((x) => x.uplink);
}
