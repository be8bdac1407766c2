/**
 * Entry for PID 1 (main.ts calls it when process.pid === 1): reads the policy
 * parameters leniently, runs the supervisor with the boot flow, and parks the
 * process forever if even the power action failed. Uncaught errors go through the
 * same policy as a fatal flow error.
 */
import type { Context } from "../platform/io/context.ts";
import { decodeCmdlineBytes } from "../config/cmdline.ts";
import { toAgentError } from "../platform/errors.ts";
import { readBoundedSync } from "../platform/fs/read-bounded.ts";
import { logEvent } from "../platform/log/logger.ts";
import { initOptionsFromCmdline } from "./init-options.ts";
import { linuxSystem } from "./linux-system.ts";
import { decideAction } from "./policy.ts";
import { perform, superviseInit } from "./supervisor.ts";

/** PID 1: supervises `agent` (the `run` command, given by the entry point) and never returns. */
export async function runPid1(ctx: Context, agent: (cmdline: string) => Promise<void>): Promise<never> {
  let text = "";
  try {
    text = decodeCmdlineBytes(readBoundedSync("/proc/cmdline", "cmdline"));
  } catch {
    // /proc not mounted (no shim): defaults apply, the supervisor mounts it.
  }
  const { options, logFormat, problems } = initOptionsFromCmdline(text);
  const log = ctx.logger(options.debug ? "debug" : "info", logFormat);
  logEvent(log, "init.options", { ...options, problems }, "metal-hammer is PID 1");
  const sys = linuxSystem();
  const onCrash = (e: unknown): void => {
    const err = toAgentError(e);
    logEvent(log, "agent.fatal", { code: err.code, exitCode: err.exitCode }, err.message, "fatal");
    void perform(sys, log, decideAction({ kind: "error", code: err.code, message: err.message }, options));
  };
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  await superviseInit(sys, log, options, () => agent(text));
  // Only reached when reboot(2) failed: PID 1 must not exit.
  setInterval(() => {}, 1 << 30);
  return new Promise<never>(() => {});
}
