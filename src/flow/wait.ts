/**
 * Stage "wait" (built-in flow): BootService/Wait until an allocation arrives,
 * bounded by METAL_WAIT_TIMEOUT, reconnecting with jitter when the stream breaks. The
 * allocation is logged with secrets redacted.
 */
import type { Api } from "./api.ts";
import type { Boot } from "../boot/boot.ts";
import type { Config } from "../config/config.ts";
import { formatDuration } from "../config/duration.ts";
import { MachineProvisioningEventType as E, type MachineAllocation } from "../gen/metalstack/api/v2/machine_pb.ts";
import { logEvent } from "../log/logger.ts";
import { redactAllocation, summarizeAllocation } from "../provision/allocation.ts";
import { waitForAllocation } from "../provision/wait.ts";
import { WAIT_BACKOFF } from "../provision/wait-policy.ts";
import type { Services } from "./services.ts";

export async function wait(config: Config, boot: Boot, api: Api, s: Services): Promise<MachineAllocation> {
  await api.events.send(E.WAITING, `waiting for an allocation (up to ${formatDuration(config.waitTimeoutMs)})`);
  const r = await waitForAllocation(api.client, boot.uuid, { ...WAIT_BACKOFF, timeoutMs: config.waitTimeoutMs }, s.log);
  const sum = summarizeAllocation(r.allocation);
  logEvent(s.log, "provision.allocation", { uuid: boot.uuid, ...sum, waitedMs: r.waitedMs, reconnects: r.reconnects, allocation: redactAllocation(r.allocation) }, `allocated: hostname ${sum.hostname ?? "(none)"}, image ${sum.image ?? "(none)"}`);
  return r.allocation;
}
