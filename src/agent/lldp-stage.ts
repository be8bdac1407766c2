/**
 * LLDP for Register: started on the selected NICs before the network comes up (the
 * switches announce every 30 s; collecting during bring-up saves that wait). A
 * receiver that cannot start is one warn line: Register then goes without
 * neighbours, and the apiserver's refusal says what LLDP saw.
 */
import type { Config } from "../config/config.ts";
import { toAgentError } from "../platform/errors.ts";
import type { LldpNeighbour, LldpSession } from "../network/lldp/neighbour.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { Services } from "./services.ts";

const NONE: LldpSession = {
  neighbours: () => new Map(),
  waitForSwitches: async () => new Map<string, readonly LldpNeighbour[]>(),
  close: async () => {},
};

/** What the `lldp` stage uses of the services (a test fakes only this). */
export type LldpServices = Pick<Services, "log" | "selectNics" | "startLldp">;

/** On the NICs METAL_NICS selects (Config.nics), announcing `systemName` (the machine uuid). */
export function lldp(config: Pick<Config, "nics">, systemName: string, s: LldpServices): LldpSession {
  let interfaces: ReturnType<Services["selectNics"]> = [];
  try {
    interfaces = s.selectNics(config.nics);
    const session = s.startLldp(interfaces, systemName);
    logEvent(s.log, "lldp.start", { interfaces: interfaces.map((i) => i.name), systemName });
    return session;
  } catch (e) {
    const err = toAgentError(e);
    logEvent(
      s.log,
      "lldp.start",
      { interfaces: interfaces.map((i) => i.name), error: err.message, code: err.code },
      `LLDP not started (${err.message}): Register goes without switch neighbours`,
      "warn",
    );
    return NONE;
  }
}
