/**
 * Stage "register" (built-in flow): events Preparing and Registering, the hardware
 * inventory (src/inventory/), then BootService/Register with uuid, hardware, bios,
 * partition and the agent's version.
 */
import { collectInventory } from "../inventory/collect.ts";
import { logEvent } from "../log/logger.ts";
import { announce } from "../provision/announce.ts";
import { register, registerRequest, REGISTER } from "../provision/register.ts";
import { versionInfo } from "../version.ts";
import { apiClient, builtinOnly } from "./api-client.ts";
import { services } from "./services.ts";
import type { Stage } from "./stage.ts";

export const registerStage: Stage = {
  name: "register",
  describe: "collect the hardware inventory and register the machine (BootService/Register)",
  when: builtinOnly,
  async run(config, deps, state) {
    const { api, boot } = apiClient(config, deps, state, "register");
    const s = services(config, deps);
    const v = versionInfo();
    await announce(api, deps.log, boot.uuid, "Preparing", `metal-hammer ${v.version} prepares the machine`);
    const inv = await collectInventory({ sysRoot: s.sysRoot, procRoot: s.procRoot }, state.network);
    const h = inv.hardware;
    logEvent(deps.log, "provision.inventory", {
      memory: h.memory,
      cpus: h.cpus.length,
      disks: h.disks.map((d) => d.name),
      nics: h.nics.map((n) => `${n.name}=${n.mac}`),
      gpus: h.gpus.length,
      bios: inv.bios ?? null,
      notes: inv.notes,
    });
    await announce(api, deps.log, boot.uuid, "Registering", `${h.nics.length} NIC(s), ${h.disks.length} disk(s), ${h.cpus.length} CPU(s)`);
    const r = await register(api, registerRequest(boot.uuid, inv, boot.partition, `${v.version} (${v.commit})`));
    state.registration = { uuid: r.uuid, size: r.size, partition: r.partition };
    logEvent(deps.log, "provision.register", { procedure: REGISTER, uuid: r.uuid, size: r.size, partition: r.partition, latencyMs: r.latencyMs, attempts: r.attempts }, `registered ${r.uuid}: size ${r.size || "(none yet)"}, partition ${r.partition}`);
  },
};
