/**
 * Stage "clock": after the network and before the first TLS connection, the clock is
 * checked against METAL_NTP_SERVERS (SNTP) and stepped when it is off (src/ops/clock).
 * Never fails the flow: without usable time a later TLS validity error names the clock
 * (runFlow hands its result to src/ops/clock/tls-hint.ts). The boot stage gets the result
 * and re-syncs from metal-boot's `ntp_servers` when it gave no time.
 */
import type { ClockState } from "../ops/clock/sync.ts";
import type { Config } from "../config/config.ts";
import type { Services } from "./services.ts";

/** What the `clock` stage uses of the services (a test fakes only this). */
export type ClockServices = Pick<Services, "log" | "ops">;

export async function clock(config: Pick<Config, "ntpServers">, s: ClockServices): Promise<ClockState> {
  return await s.ops.syncClock(config.ntpServers, s.log);
}

/** Whether the clock stage gave no time (no servers, or none answered usably): then metal-boot's ntp_servers are tried. */
export const clockUnset = (st: ClockState | undefined): boolean => st === undefined || st.decision === "no_servers" || st.decision === "unsynced";
