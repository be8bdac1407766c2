/**
 * Stage "wait" (built-in flow): BootService/Wait until an allocation arrives, bounded
 * by the smaller of METAL_WAIT_TIMEOUT and the planned reboot (METAL_PLANNED_REBOOT,
 * Operations.planReboot), reconnecting with jitter when the stream breaks; the
 * hardware watchdog is petted through the wait but never past its bound. The
 * allocation is logged with secrets redacted. Ended by the planned reboot: a reboot,
 * not an error; the outcome carries its time and reason (planned once, at the start).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Api } from "./api-stage.ts";
import type { Boot } from "../clients/metal-boot/boot.ts";
import type { Config } from "../config/config.ts";
import { formatDuration } from "../config/duration.ts";
import { toAgentError } from "../platform/errors.ts";
import { MachineProvisioningEventType as E, type MachineAllocation } from "../gen/metalstack/api/v2/machine_pb.ts";
import { logEvent } from "../platform/log/logger.ts";
import { redactAllocation, summarizeAllocation } from "./allocation.ts";
import { waitForAllocation } from "./wait-stream.ts";
import { WAIT_BACKOFF } from "./wait-policy.ts";
import type { Services } from "./services.ts";

/** `allocationJson`: the allocation exactly as the apiserver sent it (fields newer than our proto/ kept). */
export type WaitOutcome =
  | { readonly kind: "allocated"; readonly allocation: MachineAllocation; readonly allocationJson: JsonObject }
  /** `at`: when it was planned for (ISO 8601, as logged when the wait started); `reason`: why the machine reboots. */
  | { readonly kind: "planned_reboot"; readonly at: string; readonly reason: string };

/** What the `wait` stage uses of the services (a test fakes only this). */
export type WaitServices = Pick<Services, "ops" | "log">;

export async function wait(config: Pick<Config, "waitTimeoutMs" | "plannedReboot">, boot: Pick<Boot, "uuid">, api: Api, s: WaitServices): Promise<WaitOutcome> {
  const b = s.ops.planReboot(config, s.log);
  const until = b.endsBy === "planned_reboot" ? "the planned reboot" : "METAL_WAIT_TIMEOUT";
  await api.events.send(E.WAITING, `waiting for an allocation (up to ${formatDuration(b.boundMs)}, until ${until})`);
  let r;
  try {
    r = await s.ops.hold(waitForAllocation(api.client, boot.uuid, { ...WAIT_BACKOFF, timeoutMs: b.boundMs }, s.log), b.boundMs);
  } catch (e) {
    if (b.endsBy === "planned_reboot" && toAgentError(e).code === "wait_timeout") return { kind: "planned_reboot", at: b.reboot.at, reason: b.reboot.reason };
    throw e;
  }
  const sum = summarizeAllocation(r.allocation);
  logEvent(
    s.log,
    "provision.allocation",
    { uuid: boot.uuid, ...sum, waitedMs: r.waitedMs, reconnects: r.reconnects, allocation: redactAllocation(r.allocation) },
    `allocated: hostname ${sum.hostname ?? "(none)"}, image ${sum.image ?? "(none)"}`,
  );
  return { kind: "allocated", allocation: r.allocation, allocationJson: r.allocationJson };
}
