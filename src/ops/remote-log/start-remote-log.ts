/**
 * The flow's entry to remote logging, called once the config from metal-boot is known
 * (after the clock stage, so TLS to Loki sees a right clock): ship to its Loki
 * endpoint, or drop the buffered lines when there is none. Never throws.
 */
import type { UplinkConnector } from "../../clients/http/uplink-connect.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import { redactUrl, type SecretSet } from "../../platform/log/redact.ts";
import { lokiTarget, type Logging } from "./remote-log-config.ts";
import { machineLabels } from "./loki-payload.ts";
import type { LogShipper } from "./shipper.ts";
import { lokiTransport, type LokiTransport } from "./transport.ts";

export interface RemoteLogDeps {
  readonly log: Logger;
  readonly secrets: SecretSet;
  readonly uuid: string;
  /** PEM CAs for an https endpoint. */
  readonly ca?: readonly string[];
  /** The HTTP client's uplinks (clients/http/uplink-connect.ts): pushes bound to them. */
  readonly uplinks?: UplinkConnector;
  /** Tests pass their own transport factory. */
  readonly transport?: typeof lokiTransport;
}

export function startRemoteLog(shipper: LogShipper, logging: Logging | undefined, deps: RemoteLogDeps): LokiTransport | undefined {
  const t = lokiTarget(logging);
  if (t.kind === "off") {
    shipper.disable(t.reason);
    logEvent(deps.log, "remotelog.off", { reason: t.reason }, `remote logging off: ${t.reason}`);
    return undefined;
  }
  const transport = (deps.transport ?? lokiTransport)(t.target, { secrets: deps.secrets, ...(deps.ca ? { ca: deps.ca } : {}), ...(deps.uplinks ? { uplinks: deps.uplinks } : {}) });
  shipper.start(transport.push, machineLabels(deps.uuid));
  logEvent(
    deps.log,
    "remotelog.start",
    { endpoint: redactUrl(t.target.endpoint), auth: transport.auth, queued: shipper.stats.queued },
    `shipping log lines to ${redactUrl(t.target.endpoint)} (Loki, ${transport.auth}; ${shipper.stats.queued} buffered line(s) first)`,
  );
  return transport;
}

/** Logs the shipper's state changes (failing / recovered): one line per change, not per failure. */
export function logShipperChanges(log: () => Logger): (c: import("./shipper.ts").ShipperChange) => void {
  return (c) => {
    if (c.kind === "failing")
      logEvent(
        log(),
        "remotelog.failing",
        { error: c.error, queued: c.queued },
        `shipping logs fails (${c.error}); lines are kept, the oldest dropped when the buffer is full`,
        "warn",
      );
    else logEvent(log(), "remotelog.recovered", { dropped: c.dropped }, `shipping logs works again (${c.dropped} line(s) dropped so far)`);
  };
}
