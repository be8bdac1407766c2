/**
 * The IPv6 sysctls written before link-up, per interface and for conf/default
 * (links appearing later). Pure: returns the plan; sysctl.ts applies it.
 * `min` entries raise a value only when it is lower (accept_dad, dad_transmits
 * stay as configured when already >= 1). The fast profile keeps DAD.
 */
export interface SysctlEntry {
  /** Relative to /proc/sys, e.g. net/ipv6/conf/eth0/accept_ra. */
  readonly path: string;
  readonly value: number;
  readonly mode: "set" | "min";
  /** What the knob is for (docs and the net.sysctl log line). */
  readonly why: string;
}

const conf = (ifname: string, key: string) => `net/ipv6/conf/${ifname}/${key}`;

/** Written first, for each interface; forwarding must be 0 for accept_ra=1 to work. */
export function basePlan(ifname: string): SysctlEntry[] {
  return [
    { path: conf(ifname, "disable_ipv6"), value: 0, mode: "set", why: "IPv6 on" },
    { path: conf(ifname, "forwarding"), value: 0, mode: "set", why: "host, not router (accept_ra=1 is ignored when forwarding)" },
    { path: conf(ifname, "autoconf"), value: 1, mode: "set", why: "SLAAC addresses from RA prefixes" },
    { path: conf(ifname, "accept_dad"), value: 1, mode: "min", why: "duplicate address detection on" },
    { path: conf(ifname, "dad_transmits"), value: 1, mode: "min", why: "at least one DAD probe" },
  ];
}

/** accept_ra after forwarding: 1, or 2 when forwarding could not be turned off. */
export function acceptRaEntry(ifname: string, forwardingOff: boolean): SysctlEntry {
  return forwardingOff
    ? { path: conf(ifname, "accept_ra"), value: 1, mode: "set", why: "accept router advertisements" }
    : { path: conf(ifname, "accept_ra"), value: 2, mode: "set", why: "accept router advertisements although forwarding stays on" };
}

/**
 * The default in l3 mode on the selected interfaces (not conf/default): no random
 * 0..1 s delay before DAD and the first RS. RFC 4862 5.4.2 asks for that delay to
 * spread many hosts starting at once on one link; MEP-20 puts one machine on each
 * switch port's /64, where it only costs time (docs/network.md). METAL_NET_RS_DELAY=1
 * (`net up --rs-delay`) keeps the kernel's delay for shared segments.
 */
export function noRsDelayPlan(ifname: string): SysctlEntry[] {
  return [{ path: conf(ifname, "router_solicitation_delay"), value: 0, mode: "set", why: "one machine per /64 (MEP-20): no random 0-1 s delay before DAD and the first RS" }];
}

/** The opt-in fast profile (METAL_NET_FAST / --fast). DAD is kept (dad_transmits >= 1). */
export function fastPlan(ifname: string): SysctlEntry[] {
  return [
    { path: conf(ifname, "router_solicitation_delay"), value: 0, mode: "set", why: "no random 0-1 s delay before the first RS and before DAD" },
    { path: conf(ifname, "optimistic_dad"), value: 1, mode: "set", why: "addresses usable while DAD runs (RFC 4429); RS sent sooner" },
    { path: conf(ifname, "use_optimistic"), value: 1, mode: "set", why: "prefer optimistic addresses as sources" },
    { path: `net/ipv6/neigh/${ifname}/retrans_time_ms`, value: 100, mode: "set", why: "DAD probe spacing 100 ms instead of 1 s" },
  ];
}
