/**
 * Stage "installed" (built-in flow): BootService/InstallationSucceeded{uuid,
 * console_password} (metal-stack-api proto/metalstack/infra/v2/boot.proto:42-46,
 * 120-129: MACHINE_ROLE_EDITOR, console_password 2..128 characters) through the
 * generated contract; the Connect client retries transport failures with jitter
 * (bounded). A refusal is an error: the machine is not booted into an OS the
 * apiserver does not know about.
 */
import type { Api } from "./api-stage.ts";
import { ConnectError } from "../clients/api/connect-error.ts";
import { callUnary, procedureOf } from "../clients/api/rpc.ts";
import { AgentError, toAgentError } from "../platform/errors.ts";
import { BootService } from "../gen/metalstack/infra/v2/boot_pb.ts";
import type { InstallationSucceededData } from "../install/install.ts";
import { logEvent } from "../platform/log/logger.ts";
import type { Services } from "./services.ts";

export const INSTALLATION_SUCCEEDED = procedureOf(BootService.method.installationSucceeded);

/** What the `installed` stage uses of the services (a test fakes only this). */
export type InstalledServices = Pick<Services, "log">;

export async function installed(api: Api, report: InstallationSucceededData, s: InstalledServices): Promise<void> {
  let r;
  try {
    r = await callUnary(api.client, BootService.method.installationSucceeded, { uuid: report.uuid, consolePassword: report.consolePassword });
  } catch (e) {
    const err = toAgentError(e);
    const why = err instanceof ConnectError ? `${err.connectCode}: ${err.connectMessage}` : err.message;
    throw new AgentError(
      err.code,
      `apiserver refused ${INSTALLATION_SUCCEEDED} for ${report.uuid} (${why}): the installed OS is not booted`,
      { ...err.details, uuid: report.uuid },
      { cause: e },
    );
  }
  logEvent(
    s.log,
    "provision.installed",
    { procedure: INSTALLATION_SUCCEEDED, uuid: report.uuid, latencyMs: r.latencyMs, attempts: r.attempts },
    `reported ${INSTALLATION_SUCCEEDED} for ${report.uuid}`,
  );
}
