/**
 * Stage "api": proves the apiserver answers and accepts the machine token by
 * reporting that the machine booted (EventService/Send, event "Alive").
 */
import { ConnectClient } from "../api/client.ts";
import { reportBooted } from "../api/report-boot.ts";
import { logEvent } from "../log/logger.ts";
import { versionInfo } from "../version.ts";
import { need } from "./need.ts";
import { services } from "./services.ts";
import type { Stage } from "./stage.ts";

export const apiStage: Stage = {
  name: "api",
  describe: "report the boot to the apiserver (proves the token)",
  async run(config, deps, state) {
    const boot = need(state, "boot", "api", "boot");
    const api = new ConnectClient(services(config, deps).http, boot.apiserverUrl, boot.token.reveal());
    const v = versionInfo();
    const r = await reportBooted(api, boot.uuid, `metal-hammer ${v.version} (${v.commit}) booted over IPv6 (${config.mode}), partition ${boot.partition}`);
    state.api = { latencyMs: r.latencyMs, address: r.address };
    logEvent(deps.log, "api.call", { procedure: "metalstack.infra.v2.EventService/Send", provisioningEvent: "Alive", latencyMs: r.latencyMs, address: r.address ?? null, attempts: r.attempts });
  },
};
