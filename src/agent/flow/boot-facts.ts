/**
 * What the boot stage hands the rest of the flow, fresh from metal-boot
 * (src/agent/flow/metal-boot.ts) or resumed from handoff.json (src/agent/flow/resume.ts), in one
 * shape: metal-boot's answer, the network the boot went over, the clock as the last
 * check left it, and the CAs trusted from then on. The stages after it get services
 * whose HTTP client is derived from these facts here, and nowhere else.
 */
import type { Boot } from "../../clients/metal-boot/boot.ts";
import type { ClockState } from "../../ops/clock/sync.ts";
import type { TrustedCa } from "../../clients/http/client.ts";
import type { NetworkSummary } from "../../network/net/summary.ts";
import type { Services } from "./services.ts";

export interface BootFacts {
  readonly boot: Boot;
  /** The network stage's summary (undefined: started at boot, or the earlier run had none). */
  readonly network: NetworkSummary | undefined;
  /** The clock stage's state, or the re-sync from metal-boot's ntp_servers; undefined: not checked in this run (resumed). */
  readonly clock: ClockState | undefined;
  /** Trusted beyond METAL_CA for every later connection: metal-boot's `ca` (Boot.apiserverCa) and where it came from. */
  readonly trust: readonly TrustedCa[];
}

/** The services of every stage after boot: the same, with the HTTP client trusting what the boot stage trusts. */
export function afterBoot(s: Services, facts: BootFacts): Services {
  return { ...s, http: s.http.trusting(facts.trust) };
}
