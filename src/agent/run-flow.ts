/**
 * The boot flow in two phases, each a function from typed inputs to a typed result:
 * boot (boot-phase.ts: network, clock, metal-boot, apiserver, image cache, hand-off; or
 * resumed from handoff.json) returns `Booted`, and provision (provision-phase.ts:
 * register, wipe, wait, layout, install, InstallationSucceeded, kexec) starts from it
 * alone. LLDP starts first (it collects while the network comes up). Where the flow
 * starts is decided once (flow-start.ts): "boot" skips the bring-up (done by hand), a resume
 * at "register" or "wait" reads the boot facts instead of running the stages up to the
 * hand-off. A TLS error is explained by the clock the run last checked.
 */
import { machineId } from "../clients/metal-boot/machine-uuid.ts";
import { explainClockTls } from "../ops/clock/tls-hint.ts";
import type { Config } from "../config/config.ts";
import { toAgentError } from "../platform/errors.ts";
import { boot, resumed, type IdRead } from "./boot-phase.ts";
import { lldp } from "./lldp-stage.ts";
import { provision } from "./provision-phase.ts";
import type { Services } from "./services.ts";
import { StageRun } from "./stage-run.ts";
import { FRESH, type Start } from "./flow-start.ts";

export { DISK_HOLD_MS, STAGE_HOLD_MS } from "./stage-run.ts";

export async function runFlow(config: Config, s: Services, start: Start = FRESH): Promise<void> {
  const run = new StageRun(config, s);
  const builtin = config.handoff.kind === "builtin";
  // The machine id, read once: LLDP announces it as its system name (as metal-hammer does), the boot stage asks metal-boot with it. A resume has it in handoff.json.
  const begun = start.kind === "resume" ? start : { kind: start.kind, id: await readMachineId(config, s) };
  const session = builtin && begun.kind !== "resume" && begun.id.ok ? lldp(config, begun.id.id.uuid, s) : undefined;
  try {
    const b =
      begun.kind === "resume" ? { kind: "builtin" as const, ...(await resumed(begun.at, s)) } : await boot(config, s, run, { withNetwork: begun.kind === "fresh", id: begun.id });
    if (b.kind === "builtin") await provision(config, b, run, { register: !(start.kind === "resume" && start.at === "wait"), session });
    run.done();
  } catch (e) {
    // A TLS validity error names the machine's clock and METAL_NTP_SERVERS; other errors pass unchanged.
    throw explainClockTls(toAgentError(e), s.now().getTime(), run.clock);
  } finally {
    await session?.close();
  }
}

/** Never throws: a machine without a uuid fails in the boot stage, with this error. */
async function readMachineId(config: Pick<Config, "uuid">, s: Pick<Services, "readFile" | "sysRoot">): Promise<IdRead> {
  try {
    return { ok: true, id: await machineId(config.uuid, s.readFile, s.sysRoot) };
  } catch (error) {
    return { ok: false, error };
  }
}
