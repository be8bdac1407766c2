/**
 * Stage "api": proves the apiserver answers and accepts the machine token by
 * reporting that the machine booted (EventService/Send, event "Alive").
 */
import { reportBooted } from "../api/report-boot.ts";
import { logEvent } from "../log/logger.ts";
import { versionInfo } from "../version.ts";
import { apiClient } from "./api-client.ts";
import type { Stage } from "./stage.ts";

export const apiStage: Stage = {
  name: "api",
  describe: "report the boot to the apiserver (proves the token)",
  async run(config, deps, state) {
    const { api, boot } = apiClient(config, deps, state, "api");
    const v = versionInfo();
    const r = await reportBooted(api, boot.uuid, `metal-hammer ${v.version} (${v.commit}) booted over IPv6 (${config.mode}), partition ${boot.partition}`);
    state.api = { latencyMs: r.latencyMs, address: r.address };
    logEvent(deps.log, "api.call", { procedure: "metalstack.infra.v2.EventService/Send", provisioningEvent: "Alive", latencyMs: r.latencyMs, address: r.address ?? null, attempts: r.attempts });
  },
};
