/**
 * Stage "register" (built-in flow): waits (bounded by METAL_LLDP_TIMEOUT) for LLDP
 * neighbours on two distinct switches, collects the hardware inventory, then
 * BootService/Register with uuid, hardware, bios, neighbours, partition and the
 * agent's version. Events Preparing/Registering go out best effort.
 */
import { versionWithCarried } from "../install/carried-installer.ts";
import type { Api } from "./api-stage.ts";
import type { Boot } from "../clients/metal-boot/boot.ts";
import type { Config } from "../config/config.ts";
import { formatDuration } from "../config/duration.ts";
import { MachineProvisioningEventType as E } from "../gen/metalstack/api/v2/machine_pb.ts";
import type { MachineNic } from "../gen/metalstack/api/v2/machine_pb.ts";
import type { LldpSession } from "../network/lldp/neighbour.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { NetworkSummary } from "../network/net/summary.ts";
import { register as registerCall, registerRequest, REGISTER, switchesSeen, type Registration } from "./register.ts";
import { neighbourNics } from "./neighbours.ts";
import { versionInfo } from "../platform/version.ts";
import { AgentError } from "../platform/errors.ts";
import type { Services } from "./services.ts";
import { readBmcForRegister, setSuperUser } from "./bmc-stage.ts";

/** What Register sent, kept for the installer: the NICs with their switch neighbours, the generated messages as sent (machine-details.yaml nics). */
export interface Registered extends Registration {
  readonly nics: readonly MachineNic[];
}

/** What the register stage uses of the services: inventory, BMC, the carried installer's name, the log and the secrets. */
export type RegisterServices = Pick<Services, "log" | "inventory" | "bmc" | "secrets" | "carriedInstaller">;

export async function register(
  config: Pick<Config, "lldpTimeoutMs">,
  boot: Boot,
  api: Api,
  net: NetworkSummary | undefined,
  lldp: LldpSession,
  s: RegisterServices,
): Promise<Registered> {
  const v = versionInfo();
  await api.events.send(E.PREPARING, `metal-hammer ${v.version} prepares the machine`);
  logEvent(
    s.log,
    "lldp.wait",
    { switches: 2, timeoutMs: config.lldpTimeoutMs },
    `waiting up to ${formatDuration(config.lldpTimeoutMs)} for LLDP neighbours on 2 distinct switches`,
  );
  const neighbours = await lldp.waitForSwitches(2, config.lldpTimeoutMs);
  const seen = switchesSeen(neighbours);
  logEvent(
    s.log,
    "lldp.neighbours",
    { switches: seen, neighbours: Object.fromEntries([...neighbours].map(([i, ns]) => [i, ns.map((n) => `${n.systemName} ${n.portId} (${n.portDescription})`)])) },
    `LLDP: ${seen.length} switch(es)${seen.length ? `: ${seen.join(", ")}` : ""}`,
    seen.length === 2 ? "info" : "warn",
  );
  for (const o of neighbourNics(neighbours).omitted) {
    logEvent(
      s.log,
      "lldp.neighbour.omitted",
      { ...o },
      `${o.interface}: the neighbour on switch ${JSON.stringify(o.systemName)} port ${JSON.stringify(o.portId)} is left out of Register: ${o.reason}`,
      "warn",
    );
  }
  const inv = await s.inventory(net);
  const { outcome: bmc, fields: bmcFields } = await readBmcForRegister(s);
  // Never backwards (machine/bmc/register-fields.ts): a Register now would clear BMC credentials the apiserver holds.
  if (bmcFields.backwards) throw new AgentError("bmc_backwards", `${REGISTER} not called for ${boot.uuid}: ${bmcFields.backwards}`, { procedure: REGISTER });
  const h = inv.hardware;
  logEvent(s.log, "provision.inventory", {
    memory: h.memory,
    memorySource: inv.memorySource,
    cpus: h.cpus.length,
    disks: h.disks.map((d) => d.name),
    nics: h.nics.map((n) => `${n.name}=${n.mac}`),
    gpus: h.gpus.length,
    bios: inv.bios,
    notes: inv.notes,
  });
  await api.events.send(E.REGISTERING, `${h.nics.length} NIC(s), ${h.disks.length} disk(s), ${h.cpus.length} CPU(s)`);
  const request = registerRequest(boot.uuid, inv, neighbours, boot.partition, versionWithCarried(`${v.version} (${v.commit})`, s.carriedInstaller), bmcFields);
  const r = await registerCall(api.client, request, seen);
  logEvent(
    s.log,
    "provision.register",
    { procedure: REGISTER, uuid: r.uuid, size: r.size, partition: r.partition, latencyMs: r.latencyMs, attempts: r.attempts },
    `registered ${r.uuid}: size ${r.size || "(none yet)"}, partition ${r.partition}`,
  );
  await setSuperUser(boot, api, bmc, s);
  return { ...r, nics: request.hardware?.nics ?? [] };
}
