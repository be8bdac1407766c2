/**
 * What the boot stage hands the rest of the flow, fresh from metal-boot
 * (src/agent/metal-boot-stage.ts) or resumed from handoff.json (src/agent/resume.ts), in one
 * shape: metal-boot's answer, the network the boot went over, the clock as the last
 * check left it, and the CAs trusted from then on. The stages after it get services
 * whose HTTP client is derived from these facts here, and nowhere else.
 */
import type { Boot } from "../clients/metal-boot/boot.ts";
import type { ClockState } from "../ops/clock/sync.ts";
import type { HttpClient, TrustedCa } from "../clients/http/http-client.ts";
import type { NetworkSummary } from "../network/net/summary.ts";
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

declare const trustsBoot: unique symbol;
/**
 * The HTTP client of every stage after boot: it trusts what the boot stage trusts
 * (BootFacts.trust). A type of its own (a compile-time brand, nothing at run time): the
 * base client, which trusts METAL_CA alone, does not compile where this one is needed.
 */
export type BootedHttpClient = HttpClient & { readonly [trustsBoot]: true };

/** The services of the stages after boot: the base ones with the client that trusts the boot's CAs. */
export interface BootedServices extends Omit<Services, "http"> {
  readonly http: BootedHttpClient;
}

/** The only place a BootedHttpClient is made: the base client, trusting the boot's CAs too. */
export function bootedHttp(http: HttpClient, trust: BootFacts["trust"]): BootedHttpClient {
  return http.trusting(trust) as BootedHttpClient;
}

export function afterBoot(s: Services, facts: BootFacts): BootedServices {
  return { ...s, http: bootedHttp(s.http, facts.trust) };
}
