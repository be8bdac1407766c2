/**
 * Stage "network": IPv6 bring-up with the configuration (METAL_NICS,
 * METAL_NET_POLICY, METAL_NET_TIMEOUT, METAL_NET_FAST), the same code as `net up`.
 * DNS is needed for readiness only when the metal-boot URL names a host.
 */
import { bringUp } from "../net/bringup.ts";
import type { Stage } from "./stage.ts";

export const RESOLV_CONF = "/etc/resolv.conf";

export const networkStage: Stage = {
  name: "network",
  describe: "IPv6 bring-up: SLAAC, DAD, RA DNS",
  run: async (config, deps, state) => {
    const host = config.metalBootUrl.hostname;
    const r = await bringUp({
      selectors: config.nics,
      policy: config.policy,
      timeoutMs: config.netTimeoutMs,
      fast: config.fast,
      resolvConf: RESOLV_CONF,
      dnsNeeded: !(host.startsWith("[") || /^[\d.]+$/.test(host)),
      log: deps.log,
    });
    state.network = r.summary;
  },
};
