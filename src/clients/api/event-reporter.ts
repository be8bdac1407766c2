/**
 * Provisioning events, best effort (EventService/Send). Upstream, Send is
 * INFRA_ROLE_EDITOR only (metal-stack-api proto/metalstack/infra/v2/event.proto), so
 * the machine token normally gets permission_denied; metal-hammer itself only logs
 * its events. So: events go out with their full enum value names
 * (MACHINE_PROVISIONING_EVENT_TYPE_ALIVE, never the display name "Alive"); the first
 * permission_denied or unimplemented turns events off for this boot with one info
 * line; any other failure is one warn line. An event never stops the flow.
 */
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { toAgentError } from "../../platform/errors.ts";
import { EventService } from "../../gen/metalstack/infra/v2/event_pb.ts";
import { MachineProvisioningEventTypeSchema, type MachineProvisioningEventType } from "../../gen/metalstack/api/v2/machine_pb.ts";
import { logEvent, type Logger } from "../../platform/log/logger.ts";
import type { ConnectClient } from "./connect-client.ts";
import { ConnectError } from "./connect-error.ts";
import { callUnary, procedureOf } from "./rpc.ts";

export const EVENT_SEND = procedureOf(EventService.method.send);

/** The full enum value name, e.g. "MACHINE_PROVISIONING_EVENT_TYPE_ALIVE" (what protojson sends). */
export const eventTypeName = (t: MachineProvisioningEventType): string => MachineProvisioningEventTypeSchema.values.find((v) => v.number === t)?.name ?? String(t);

export type EventOutcome = "sent" | "disabled" | "failed" | "off";

export class EventReporter {
  readonly #api: Pick<ConnectClient, "unary">;
  readonly #log: Logger;
  readonly #uuid: string;
  readonly #now: () => Date;
  #off = false;

  constructor(api: Pick<ConnectClient, "unary">, uuid: string, log: Logger, now: () => Date = () => new Date()) {
    this.#api = api;
    this.#uuid = uuid;
    this.#log = log;
    this.#now = now;
  }

  get enabled(): boolean {
    return !this.#off;
  }

  /** Sends one event; never throws. */
  async send(type: MachineProvisioningEventType, message: string): Promise<EventOutcome> {
    const event = eventTypeName(type);
    if (this.#off) return "off";
    try {
      const r = await callUnary(this.#api, EventService.method.send, { events: { [this.#uuid]: { time: timestampFromDate(this.#now()), event: type, message } } });
      const failed = r.message.failed.includes(this.#uuid);
      logEvent(
        this.#log,
        "provision.event",
        { uuid: this.#uuid, provisioningEvent: event, latencyMs: r.latencyMs, accepted: !failed },
        `${event}: ${message}${failed ? " (listed as failed by the apiserver)" : ""}`,
        failed ? "warn" : "info",
      );
      return failed ? "failed" : "sent";
    } catch (e) {
      const err = toAgentError(e);
      const code = err instanceof ConnectError ? err.connectCode : undefined;
      if (code === "permission_denied" || code === "unimplemented") {
        this.#off = true;
        logEvent(
          this.#log,
          "provision.event.off",
          { uuid: this.#uuid, provisioningEvent: event, connectCode: code },
          `provisioning events are off for this boot: the apiserver answered ${code} to ${EVENT_SEND} (upstream it is INFRA_ROLE only); the flow goes on`,
        );
        return "disabled";
      }
      logEvent(this.#log, "provision.event", { uuid: this.#uuid, provisioningEvent: event, error: err.message }, `${event} not sent (the flow goes on): ${err.message}`, "warn");
      return "failed";
    }
  }
}
