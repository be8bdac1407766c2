/**
 * Stage "network": IPv6 bring-up with the configuration (METAL_NICS,
 * METAL_NET_POLICY, METAL_NET_TIMEOUT, METAL_NET_FAST, METAL_NET_RS_DELAY), the same code as `net up`.
 * DNS is needed for readiness only when the metal-boot URL names a host. Then the
 * selected NICs become the HTTP client's uplinks (each its own routing table).
 */
import type { Config } from "../config/config.ts";
import type { NetworkSummary } from "../network/net/summary.ts";
import type { Services } from "./services.ts";

export const RESOLV_CONF = "/etc/resolv.conf";

/** What the `network` stage uses of the services (a test fakes only this). */
export type NetworkServices = Pick<Services, "bringUp" | "log" | "resolvConf" | "sysRoot" | "uplinks">;

export async function network(config: Pick<Config, "metalBootUrl" | "nics" | "policy" | "netTimeoutMs" | "fast" | "rsDelay">, s: NetworkServices): Promise<NetworkSummary> {
  const host = config.metalBootUrl.hostname;
  const r = await s.bringUp({
    selectors: config.nics,
    policy: config.policy,
    timeoutMs: config.netTimeoutMs,
    fast: config.fast,
    rsDelay: config.rsDelay,
    resolvConf: s.resolvConf,
    sysfsRoot: s.sysRoot,
    dnsNeeded: !(host.startsWith("[") || /^[\d.]+$/.test(host)),
    log: s.log,
  });
  // From here on every HTTP connection is bound to one of these NICs' uplinks (docs/network.md "Uplinks").
  s.uplinks.follow(r.summary.interfaces.map((i) => i.name));
  return r.summary;
}
