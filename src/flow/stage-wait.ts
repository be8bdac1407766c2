/**
 * Stage "wait" (built-in flow): event Waiting, then BootService/Wait until an
 * allocation arrives, bounded by METAL_WAIT_TIMEOUT, reconnecting with jitter when
 * the stream breaks. The allocation is logged with secrets redacted.
 */
import { logEvent } from "../log/logger.ts";
import { redactAllocation, summarizeAllocation } from "../provision/allocation.ts";
import { announce } from "../provision/announce.ts";
import { waitForAllocation } from "../provision/wait.ts";
import { WAIT_BACKOFF } from "../provision/wait-policy.ts";
import { formatDuration } from "../config/duration.ts";
import { apiClient, builtinOnly } from "./api-client.ts";
import type { Stage } from "./stage.ts";

export const waitStage: Stage = {
  name: "wait",
  describe: "wait for an allocation (BootService/Wait)",
  when: builtinOnly,
  async run(config, deps, state) {
    const { api, boot } = apiClient(config, deps, state, "wait");
    await announce(api, deps.log, boot.uuid, "Waiting", `waiting for an allocation (up to ${formatDuration(config.waitTimeoutMs)})`);
    const r = await waitForAllocation(api, boot.uuid, { ...WAIT_BACKOFF, timeoutMs: config.waitTimeoutMs }, deps.log);
    state.allocation = r.allocation;
    const sum = summarizeAllocation(r.allocation);
    logEvent(deps.log, "provision.allocation", { uuid: boot.uuid, ...sum, waitedMs: r.waitedMs, reconnects: r.reconnects, allocation: redactAllocation(r.allocation) }, `allocated: hostname ${sum.hostname ?? "(none)"}, image ${sum.image ?? "(none)"}`);
  },
};
