/**
 * The boot flow, top to bottom: each stage takes the typed results of the earlier
 * ones and returns its own. LLDP starts first (it collects while the network comes
 * up), then network bring-up, metal-boot (config + token), the apiserver, the image
 * cache, the hand-off; with METAL_HANDOFF=builtin then register, wait, install (not
 * built: exit 3). `from` starts later: "boot" skips the bring-up (done by hand),
 * "register" and "wait" resume from handoff.json and the token file.
 */
import type { Boot } from "../boot/boot.ts";
import { machineId } from "../boot/uuid.ts";
import type { Config } from "../config/config.ts";
import { logEvent } from "../log/logger.ts";
import type { NetworkSummary } from "../net/summary.ts";
import { api as apiStage, connectApi, type Api } from "./api.ts";
import { handoff } from "./handoff.ts";
import { image } from "./image.ts";
import { install } from "./install.ts";
import { lldp } from "./lldp.ts";
import { metalBoot } from "./metal-boot.ts";
import { network } from "./network.ts";
import { register } from "./register.ts";
import { resume } from "./resume.ts";
import type { Services } from "./services.ts";
import { wait } from "./wait.ts";

/** Where `run --from` may start: each of these can start on its own. */
export const START_STAGES = ["network", "boot", "register", "wait"] as const;
export type StartStage = (typeof START_STAGES)[number];

export async function runFlow(config: Config, s: Services, from: StartStage = "network"): Promise<void> {
  const t0 = performance.now();
  const stagesMs: Record<string, number> = {};
  const stage = async <T>(name: string, describe: string, fn: () => Promise<T>): Promise<T> => {
    logEvent(s.log, "agent.stage", { stage: name }, describe);
    const r = await fn();
    stagesMs[name] = Math.round(performance.now() - t0);
    return r;
  };
  const builtin = config.handoff.kind === "builtin";
  // LLDP announces the machine uuid as its system name (as metal-hammer does); read early, the boot stage reads it again.
  const systemName = from === "network" || from === "boot" ? ((await machineId(config.uuid, s.readFile, s.sysRoot).catch(() => undefined))?.uuid ?? "") : "";
  const session = builtin && from !== "wait" && systemName !== "" ? lldp(systemName, s) : undefined;
  const done = () => logEvent(s.log, "agent.done", { stageTimesMs: stagesMs });
  /** Stages network (unless from boot) to handoff; `api` is undefined unless the built-in flow goes on (an exec hand-off does not return). */
  const toHandoff = async (start: "network" | "boot"): Promise<{ boot: Boot; network: NetworkSummary | undefined; api: Api | undefined }> => {
    const net = start === "network" ? await stage("network", "IPv6 bring-up: SLAAC, DAD, RA DNS", () => network(config, s)) : undefined;
    const boot = await stage("boot", "config and machine token from metal-boot", () => metalBoot(config, net, s));
    const a = await stage("api", "the apiserver answers (VersionService/Get)", () => apiStage(boot, s));
    await stage("image", "probe the image cache", () => image(boot, s));
    await stage("handoff", "write handoff.json and hand over to the next stage", () => handoff(config, { network: net, boot, apiserverVersion: a.version?.version, stagesMs }, s));
    return { boot, network: net, api: builtin ? a : undefined };
  };
  const resumed = async (start: "register" | "wait") => {
    const r = await resume(start, s);
    return { ...r, api: connectApi(r.boot, s) };
  };
  try {
    const { boot, network: net, api: a } = from === "network" || from === "boot" ? await toHandoff(from) : await resumed(from);
    if (!a) return done();
    if (from !== "wait") await stage("register", "collect the hardware inventory and register the machine (BootService/Register)", () => register(config, boot, a, net, session ?? lldp(boot.uuid, s), s));
    const allocation = await stage("wait", "wait for an allocation (BootService/Wait)", () => wait(config, boot, a, s));
    await stage("install", "install the allocated image (not built yet)", async () => install(boot, allocation));
  } finally {
    await session?.close();
  }
}
