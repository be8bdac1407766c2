/**
 * The second phase (METAL_HANDOFF=builtin): register (unless resumed at wait), wipe
 * every disk, wait for an allocation (bounded by METAL_WAIT_TIMEOUT and the planned
 * reboot), layout, install, InstallationSucceeded, kexec into the installed OS. It
 * starts from `Booted` alone: every fact of the boot phase travels in it.
 */
import type { Config } from "../config/config.ts";
import type { LldpSession } from "../network/lldp/neighbour.ts";
import { bootInstalled } from "../install/kexec.ts";
import { machineNics } from "./register.ts";
import type { Booted } from "./boot-phase.ts";
import { install } from "./install-stage.ts";
import { installed } from "./installed-stage.ts";
import { layout } from "./layout-stage.ts";
import { lldp } from "./lldp-stage.ts";
import { plannedReboot } from "./reboot-stage.ts";
import { register } from "./register-stage.ts";
import { DISK_HOLD_MS, type StageRun } from "./stage-run.ts";
import { wait } from "./wait-stage.ts";

export interface ProvisionStart {
  /** false: resumed at wait, Register ran in an earlier run. */
  readonly register: boolean;
  /** The LLDP receiver started with the flow (it collects while the network comes up); else one is started here. */
  readonly session: LldpSession | undefined;
}

export async function provision(config: Config, b: Booted, run: StageRun, start: ProvisionStart): Promise<void> {
  const { facts, after: s, api: a } = b;
  const { boot, network: net } = facts;
  const registered = start.register
    ? await run.stage("register", "collect the hardware inventory and register the machine (BootService/Register)", () =>
        register(config, boot, a, net, start.session ?? lldp(config, boot.uuid, s), s),
      )
    : undefined;
  // A freed machine must never carry the last tenant's data into the wait.
  // An overwrite of a large disk legitimately runs for hours: the watchdog is held for the wipe's own bound.
  const wipeHoldMs = await s.disks.wipeBoundMs(config.wipe).catch(() => DISK_HOLD_MS);
  await run.stage("wipe", "wipe every disk before waiting for an allocation", () => s.disks.wipe(config.wipe, s.log, (r) => s.ops.recordWipe(r)), wipeHoldMs);
  const w = await run.stage("wait", "wait for an allocation (BootService/Wait)", () => wait(config, boot, a, s));
  if (w.kind === "planned_reboot") return await plannedReboot(w, s);
  const allocation = w.allocation;
  const target = await run.stage("layout", "build the allocation's filesystem layout and mount the target", () => layout(allocation, s), DISK_HOLD_MS);
  // The NICs with their switch neighbours as Register sent them; resumed at wait, the inventory's without neighbours.
  const nics = registered ? registered.nics : machineNics((await s.inventory(net)).hardware.nics, new Map());
  const os = await run.stage("install", "stream the image onto the target and run its installer", () => install(config, boot, allocation, w.allocationJson, target, nics, s));
  await run.stage("installed", "report the installation (BootService/InstallationSucceeded)", () => installed(a, os.report, s));
  // The watchdog is closed only right before reboot(2), after kexec_file_load (bootInstalled's beforeReboot).
  await run.stage("kexec", "boot the installed OS (kexec_file_load, else reboot)", async () => {
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
}
