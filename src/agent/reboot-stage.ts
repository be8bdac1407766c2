/**
 * The planned reboot (METAL_PLANNED_REBOOT) ended the wait for an allocation: one
 * line, the last log lines flushed and the watchdog closed (Operations.beforeReboot),
 * then reboot(2). A reboot, not an error; only a refused reboot(2) is one.
 */
import { AgentError } from "../platform/errors.ts";
import { LINUX_REBOOT_CMD_RESTART } from "../platform/sys/reboot-syscall.ts";
import { errnoName } from "../platform/sys/errno.ts";
import type { Services } from "./services.ts";
import type { WaitOutcome } from "./wait-stage.ts";

/** What the `plannedReboot` stage uses of the services (a test fakes only this). */
export type RebootServices = Pick<Services, "ops" | "log" | "kexecSys">;

export async function plannedReboot(due: Extract<WaitOutcome, { kind: "planned_reboot" }>, s: RebootServices): Promise<void> {
  s.ops.rebootDue(due, s.log);
  await s.ops.beforeReboot("planned reboot", s.log);
  await s.log.flush();
  s.kexecSys.drainConsole();
  s.kexecSys.sync();
  const err = s.kexecSys.reboot(LINUX_REBOOT_CMD_RESTART);
  if (err !== 0) throw new AgentError("reboot", `planned reboot: reboot(2) failed: ${errnoName(err)}`, { errno: err });
}
