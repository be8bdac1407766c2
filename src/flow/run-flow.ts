/**
 * The boot flow, top to bottom: each stage takes the typed results of the earlier
 * ones and returns its own. LLDP starts first (it collects while the network comes
 * up), then network bring-up, the clock (SNTP, before any TLS), metal-boot (config,
 * token, remote logging), the apiserver, the image cache, the hand-off; with
 * METAL_HANDOFF=builtin then register, wipe every disk, wait (bounded by
 * METAL_WAIT_TIMEOUT and the planned reboot), layout, install, InstallationSucceeded
 * and kexec into the installed OS. Each stage starts with Operations.stage (pets the
 * watchdog, records the stage in status.json); a TLS error is explained by the clock.
 * `from` starts later: "boot" skips the bring-up (done by hand), "register" and
 * "wait" resume from handoff.json and the token file.
 */
import type { Boot } from "../boot/boot.ts";
import { machineId } from "../boot/uuid.ts";
import type { Config } from "../config/config.ts";
import { toAgentError } from "../errors.ts";
import type { InstallNic } from "../install/contract.ts";
import { bootInstalled } from "../install/kexec.ts";
import { logEvent } from "../log/logger.ts";
import type { NetworkSummary } from "../net/summary.ts";
import { api as apiStage, connectApi, type Api } from "./api.ts";
import { handoff } from "./handoff.ts";
import { image } from "./image.ts";
import { clock } from "./clock.ts";
import { install } from "./install.ts";
import { installed } from "./installed.ts";
import { layout } from "./layout.ts";
import { lldp } from "./lldp.ts";
import { metalBoot } from "./metal-boot.ts";
import { network } from "./network.ts";
import { plannedReboot } from "./reboot.ts";
import { installNics, register } from "./register.ts";
import { resume } from "./resume.ts";
import type { Services } from "./services.ts";
import { wait } from "./wait.ts";

/** Where `run --from` may start: each of these can start on its own. */
export const START_STAGES = ["network", "boot", "register", "wait"] as const;
export type StartStage = (typeof START_STAGES)[number];

/**
 * How long the watchdog is petted through a stage that has no bound of its own below
 * the watchdog's timeout (each stage's own bounds are shorter; a stage stuck longer
 * lets the watchdog reset the machine). Wait and install hold it themselves.
 */
export const STAGE_HOLD_MS = 15 * 60_000;
/** Building the layout on many or large disks (mkfs, discard) takes longer; also the wipe's hold when its own bound cannot be computed. */
export const DISK_HOLD_MS = 2 * 3600_000;

export async function runFlow(config: Config, s: Services, from: StartStage = "network"): Promise<void> {
  const t0 = performance.now();
  const stagesMs: Record<string, number> = {};
  const stage = async <T>(name: string, describe: string, fn: () => Promise<T>, holdMs = STAGE_HOLD_MS): Promise<T> => {
    logEvent(s.log, "agent.stage", { stage: name }, describe);
    await s.ops.stage(name, s.log);
    const r = await s.ops.hold(fn(), holdMs);
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
    await stage("clock", "check the clock against METAL_NTP_SERVERS (SNTP) before any TLS", () => clock(config, s));
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
    let nics: readonly InstallNic[] | undefined;
    if (from !== "wait") nics = (await stage("register", "collect the hardware inventory and register the machine (BootService/Register)", () => register(config, boot, a, net, session ?? lldp(boot.uuid, s), s))).nics;
    // A freed machine must never carry the last tenant's data into the wait.
    // An overwrite of a large disk legitimately runs for hours: the watchdog is held for the wipe's own bound.
    const wipeHoldMs = await s.disks.wipeBoundMs().catch(() => DISK_HOLD_MS);
    await stage("wipe", "wipe every disk before waiting for an allocation", () => s.disks.wipe(s.log), wipeHoldMs);
    const w = await stage("wait", "wait for an allocation (BootService/Wait)", () => wait(config, boot, a, s));
    if (w.kind === "planned_reboot") {
      await plannedReboot(s);
      return done();
    }
    const allocation = w.allocation;
    const target = await stage("layout", "build the allocation's filesystem layout and mount the target", () => layout(allocation, s), DISK_HOLD_MS);
    // Resumed at wait: the NICs without switch neighbours (Register sent them in an earlier run).
    nics ??= installNics(await s.inventory(net), new Map());
    const os = await stage("install", "stream the image onto the target and run its installer", () => install(config, boot, allocation, w.allocationJson, target, nics, s));
    await stage("installed", "report the installation (BootService/InstallationSucceeded)", () => installed(a, os.report, s));
    // The watchdog is closed only right before reboot(2), after kexec_file_load (bootInstalled's beforeReboot).
    await stage("kexec", "boot the installed OS (kexec_file_load, else reboot)", async () => {
      await s.log.flush();
      return await bootInstalled({ root: target.root, bootInfo: os.bootInfo, log: s.log, sys: s.kexecSys, unmountTarget: target.unmount, beforeReboot: () => s.ops.beforeReboot("kexec", s.log) });
    });
    done();
  } catch (e) {
    // A TLS validity error names the machine's clock and METAL_NTP_SERVERS; other errors pass unchanged.
    throw s.ops.explainTls(toAgentError(e));
  } finally {
    await session?.close();
  }
}
