/**
 * Stage "api": the apiserver answers over TLS: metalstack.api.v2.VersionService/Get
 * (public, no token), its version logged. The token is proven by Register. The
 * client with the token and the best-effort event reporter are built here for the
 * later stages; its token is renewed from metal-boot when it expires.
 */
import { ConnectClient } from "../clients/api/connect-client.ts";
import { EventReporter } from "../clients/api/event-reporter.ts";
import { apiVersion, VERSION_GET, type ApiVersion } from "../clients/api/api-version.ts";
import type { Boot } from "../clients/metal-boot/boot.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { BootedServices } from "./boot-facts.ts";
import { renewingToken } from "./token-renewal.ts";

export interface Api {
  readonly client: ConnectClient;
  readonly events: EventReporter;
  /** undefined when the flow resumed past the api stage (run --from). */
  readonly version: ApiVersion | undefined;
}

/** The token-carrying client and event reporter for `boot` (no call made). */
/** What the api stage uses: the client that trusts the boot's CAs, the log, the clock for events; the secrets and status for a renewed token. */
export type ApiServices = Pick<BootedServices, "http" | "log" | "now" | "secrets" | "ops">;

export function connectApi(boot: Boot, s: ApiServices, version?: ApiVersion): Api {
  // The token is renewed from metal-boot when the apiserver refuses it after it had worked (token-renewal.ts).
  const client = new ConnectClient(s.http, boot.apiserverUrl, renewingToken(boot, s));
  return { client, events: new EventReporter(client, boot.uuid, s.log, s.now), version };
}

export async function api(boot: Boot, s: ApiServices): Promise<Api> {
  const v = await apiVersion(new ConnectClient(s.http, boot.apiserverUrl, undefined));
  logEvent(
    s.log,
    "api.version",
    {
      procedure: VERSION_GET,
      version: v.version,
      revision: v.revision,
      gitSha1: v.gitSha1,
      buildDate: v.buildDate,
      latencyMs: v.latencyMs,
      address: v.address ?? null,
      attempts: v.attempts,
    },
    `apiserver ${boot.apiserverUrl.href} answers: version ${v.version || "(empty)"}`,
  );
  return connectApi(boot, s, v);
}
