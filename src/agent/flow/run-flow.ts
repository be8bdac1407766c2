/**
 * The boot flow, top to bottom: each stage takes the typed results of the earlier
 * ones and returns its own. LLDP starts first (it collects while the network comes
 * up), then network bring-up, the clock (SNTP, before any TLS), metal-boot (config,
 * token, remote logging), the apiserver, the image cache, the hand-off; with
 * METAL_HANDOFF=builtin then register, wipe every disk, wait (bounded by
 * METAL_WAIT_TIMEOUT and the planned reboot), layout, install, InstallationSucceeded
 * and kexec into the installed OS. Each stage starts with Operations.stage (pets the
 * watchdog, records the stage in status.json); a TLS error is explained by the clock.
 * Where it starts is decided once (src/agent/flow/start.ts): "boot" skips the bring-up (done
 * by hand), a resume at "register" or "wait" reads the boot facts from handoff.json
 * and the token file instead of running the stages up to the hand-off.
 */
import { machineId, type MachineId } from "../../clients/metal-boot/uuid.ts";
import type { ClockState } from "../../ops/clock/sync.ts";
import { explainClockTls } from "../../ops/clock/tls-hint.ts";
import type { Config } from "../../config/config.ts";
import type { StageName } from "../../config/stages.ts";
import { toAgentError } from "../../errors.ts";
import { bootInstalled } from "../../install/kexec.ts";
import { logEvent } from "../../platform/log/logger.ts";
import { api as apiStage, connectApi, type Api } from "./api.ts";
import { afterBoot, type BootFacts } from "./boot-facts.ts";
import { machineNics } from "../provision/register.ts";
import { clock as clockStage } from "./clock.ts";
import { handoff } from "./handoff.ts";
import { image } from "./image.ts";
import { install } from "./install.ts";
import { installed } from "./installed.ts";
import { layout } from "./layout.ts";
import { lldp } from "./lldp.ts";
import { metalBoot } from "./metal-boot.ts";
import { network } from "./network.ts";
import { plannedReboot } from "./reboot.ts";
import { register } from "./register.ts";
import { resume } from "./resume.ts";
import type { Services } from "./services.ts";
import { FRESH, type Start } from "./start.ts";
import { wait } from "./wait.ts";

/**
 * How long the watchdog is petted through a stage that has no bound of its own below
 * the watchdog's timeout (each stage's own bounds are shorter; a stage stuck longer
 * lets the watchdog reset the machine). Wait and install hold it themselves.
 */
export const STAGE_HOLD_MS = 15 * 60_000;
/** Building the layout on many or large disks (mkfs, discard) takes longer; also the wipe's hold when its own bound cannot be computed. */
export const DISK_HOLD_MS = 2 * 3600_000;

/** The machine id as read at the start: its error is the boot stage's. */
type IdRead = { readonly ok: true; readonly id: MachineId } | { readonly ok: false; readonly error: unknown };

/** The boot facts, the services derived from them for every later stage, the apiserver client. */
interface Booted {
  readonly facts: BootFacts;
  readonly after: Services;
  readonly api: Api;
}

/** Up to the hand-off: an exec hand-off has replaced the agent, or the built-in flow goes on. */
type UpToHandoff = { readonly kind: "handed_off" } | ({ readonly kind: "builtin" } & Booted);

export async function runFlow(config: Config, s: Services, start: Start = FRESH): Promise<void> {
  const t0 = performance.now();
  const stagesMs: Partial<Record<StageName, number>> = {};
  const stage = async <T>(name: StageName, describe: string, fn: () => Promise<T>, holdMs = STAGE_HOLD_MS): Promise<T> => {
    logEvent(s.log, "agent.stage", { stage: name }, describe);
    await s.ops.stage(name, s.log, config.debugHang);
    const r = await s.ops.hold(fn(), holdMs);
    stagesMs[name] = Math.round(performance.now() - t0);
    return r;
  };
  const builtin = config.handoff.kind === "builtin";
  // The machine id, read once: LLDP announces it as its system name (as metal-hammer does), the boot stage asks metal-boot with it. A resume has it in handoff.json.
  const begun = start.kind === "resume" ? start : { kind: start.kind, id: await readMachineId(config, s) };
  const session = builtin && begun.kind !== "resume" && begun.id.ok ? lldp(config, begun.id.id.uuid, s) : undefined;
  // What a TLS validity error names: the clock as the last check of this run left it.
  let clock: ClockState | undefined;
  const done = () => logEvent(s.log, "agent.done", { stageTimesMs: stagesMs });

  /** Network (unless started at boot), clock, boot, api, image, hand-off. */
  const upToHandoff = async (withNetwork: boolean, id: IdRead): Promise<UpToHandoff> => {
    const net = withNetwork ? await stage("network", "IPv6 bring-up: SLAAC, DAD, RA DNS", () => network(config, s)) : undefined;
    const checked = await stage("clock", "check the clock against METAL_NTP_SERVERS (SNTP) before any TLS", () => clockStage(config, s));
    clock = checked;
    const facts = await stage("boot", "config and machine token from metal-boot", async () => {
      if (!id.ok) throw id.error;
      return await metalBoot(config, { id: id.id, network: net, clock: checked }, s);
    });
    clock = facts.clock;
    const after = afterBoot(s, facts);
    const a = await stage("api", "the apiserver answers (VersionService/Get)", () => apiStage(facts.boot, after));
    await stage("image", "probe the image cache", () => image(facts.boot, after));
    // An exec hand-off closes s.http before execve, and with it the client derived from it.
    await stage("handoff", "write handoff.json and hand over to the next stage", () =>
      handoff(config, { network: net, boot: facts.boot, apiserverVersion: a.version?.version, stagesMs }, s),
    );
    return builtin ? { kind: "builtin", facts, after, api: a } : { kind: "handed_off" };
  };
  /** Resumed: the boot facts from handoff.json, the apiserver client without a call. */
  const resumed = async (at: "register" | "wait"): Promise<UpToHandoff> => {
    const facts = await resume(at, s);
    // The NICs of the run that wrote handoff.json carry this one's connections too.
    if (facts.network) s.uplinks.follow(facts.network.interfaces.map((i) => i.name));
    const after = afterBoot(s, facts);
    return { kind: "builtin", facts, after, api: connectApi(facts.boot, after) };
  };

  try {
    const up = begun.kind === "resume" ? await resumed(begun.at) : await upToHandoff(begun.kind === "fresh", begun.id);
    if (up.kind === "handed_off") return done();
    const { facts, after, api: a } = up;
    const { boot, network: net } = facts;
    // Resumed at wait: Register ran in an earlier run.
    const registered =
      begun.kind === "resume" && begun.at === "wait"
        ? undefined
        : await stage("register", "collect the hardware inventory and register the machine (BootService/Register)", () =>
            register(config, boot, a, net, session ?? lldp(config, boot.uuid, after), after),
          );
    // A freed machine must never carry the last tenant's data into the wait.
    // An overwrite of a large disk legitimately runs for hours: the watchdog is held for the wipe's own bound.
    const wipeHoldMs = await s.disks.wipeBoundMs(config.wipe).catch(() => DISK_HOLD_MS);
    await stage("wipe", "wipe every disk before waiting for an allocation", () => s.disks.wipe(config.wipe, s.log), wipeHoldMs);
    const w = await stage("wait", "wait for an allocation (BootService/Wait)", () => wait(config, boot, a, after));
    if (w.kind === "planned_reboot") {
      await plannedReboot(w, after);
      return done();
    }
    const allocation = w.allocation;
    const target = await stage("layout", "build the allocation's filesystem layout and mount the target", () => layout(allocation, after), DISK_HOLD_MS);
    // The NICs with their switch neighbours as Register sent them; resumed at wait, the inventory's without neighbours.
    const nics = registered ? registered.nics : machineNics((await s.inventory(net)).hardware.nics, new Map());
    const os = await stage("install", "stream the image onto the target and run its installer", () => install(config, boot, allocation, w.allocationJson, target, nics, after));
    await stage("installed", "report the installation (BootService/InstallationSucceeded)", () => installed(a, os.report, after));
    // The watchdog is closed only right before reboot(2), after kexec_file_load (bootInstalled's beforeReboot).
    await stage("kexec", "boot the installed OS (kexec_file_load, else reboot)", async () => {
      await s.log.flush();
      return await bootInstalled({
        root: target.root,
        bootInfo: os.bootInfo,
        log: s.log,
        sys: s.kexecSys,
        unmountTarget: target.unmount,
        beforeReboot: () => s.ops.beforeReboot("kexec", s.log),
      });
    });
    done();
  } catch (e) {
    // A TLS validity error names the machine's clock and METAL_NTP_SERVERS; other errors pass unchanged.
    throw explainClockTls(toAgentError(e), s.now().getTime(), clock);
  } finally {
    await session?.close();
  }
}

/** Never throws: a machine without a uuid fails in the boot stage, with this error. */
async function readMachineId(config: Config, s: Services): Promise<IdRead> {
  try {
    return { ok: true, id: await machineId(config.uuid, s.readFile, s.sysRoot) };
  } catch (error) {
    return { ok: false, error };
  }
}
