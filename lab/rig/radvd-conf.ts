/**
 * The one radvd config renderer of the labs: one `interface` block per port, each
 * advertising that port's /64 (on-link, autonomous), a default route and, when given,
 * RDNSS and DNSSL, as a boot VRF's router does (MEP-20: one /64 per switch port; the
 * agent's readiness includes DNS). Pure: unit-tested in test/lab/rig/.
 * radvd's AdvSourceLLAddress is on by default (radvd.conf(5)), so it is not written.
 */

export interface RadvdPort {
  /** The interface radvd sends on (a tap, a veth end, a bridge). */
  readonly ifname: string;
  /** The /64 it advertises, e.g. `2001:db8:a::/64`. */
  readonly prefix: string;
  /** RDNSS addresses; none: no RDNSS option. */
  readonly rdnss?: readonly string[];
  /** DNSSL search domains; none: no DNSSL option. */
  readonly dnssl?: readonly string[];
}

/** What every port advertises besides its prefix: RAs every 3-10 s, a default route for 600 s. */
export const RA_TIMING = { minIntervalS: 3, maxIntervalS: 10, defaultLifetimeS: 600 } as const;

const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;
const PREFIX64 = /^[0-9a-f:]+::\/64$/i;

function block(p: RadvdPort): string {
  if (!IFNAME.test(p.ifname)) throw new Error(`radvd port ${JSON.stringify(p.ifname)}: expected an interface name of 1-15 letters, digits, '_', '.', '-'`);
  if (!PREFIX64.test(p.prefix)) throw new Error(`radvd port ${p.ifname}: prefix ${JSON.stringify(p.prefix)}: expected a /64 like 2001:db8:a::/64`);
  const lines = [
    `interface ${p.ifname} {`,
    "  AdvSendAdvert on;",
    `  MinRtrAdvInterval ${RA_TIMING.minIntervalS};`,
    `  MaxRtrAdvInterval ${RA_TIMING.maxIntervalS};`,
    `  AdvDefaultLifetime ${RA_TIMING.defaultLifetimeS};`,
    `  prefix ${p.prefix} {`,
    "    AdvOnLink on;",
    "    AdvAutonomous on;",
    "  };",
  ];
  if (p.rdnss && p.rdnss.length > 0) lines.push(`  RDNSS ${p.rdnss.join(" ")} {`, "  };");
  if (p.dnssl && p.dnssl.length > 0) lines.push(`  DNSSL ${p.dnssl.join(" ")} {`, "  };");
  lines.push("};");
  return lines.join("\n") + "\n";
}

/** radvd.conf for `ports`, in order; throws naming the port when a name or prefix is not one radvd should get. */
export function radvdConf(ports: readonly RadvdPort[]): string {
  const seen = new Set<string>();
  for (const p of ports) {
    if (seen.has(p.ifname)) throw new Error(`radvd port ${p.ifname}: given twice (one block per interface)`);
    seen.add(p.ifname);
  }
  return ports.map(block).join("");
}
