/**
 * PLACEHOLDER until the LLDP receiver lands (engineer "lldp" owns this file and
 * replaces it): the signature the flow composes with. Starting it fails with
 * not_built; the flow then registers without neighbours and says so.
 */
import { AgentError } from "../errors.ts";
import type { Logger } from "../log/logger.ts";
import type { LldpInterface, LldpSession } from "./neighbour.ts";

export function startLldp(opts: { interfaces: readonly LldpInterface[]; systemName: string; log: Logger }): LldpSession {
  throw new AgentError("not_built", `LLDP receiver is not built yet (asked for ${opts.interfaces.map((i) => i.name).join(", ") || "no interfaces"})`, { step: "lldp" });
}
