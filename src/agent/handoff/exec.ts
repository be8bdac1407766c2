/**
 * METAL_HANDOFF=exec:/path: replace this process with the next stage (execve(2), via
 * bun:ffi: Bun has no exec of its own, and as PID 1 the next stage must *become* PID
 * 1, not run as a child). The environment is ours plus METAL_HANDOFF_FILE.
 */
import { accessSync, constants } from "node:fs";
import { AgentError } from "../../platform/errors.ts";
import { errnoName } from "../../platform/sys/errno.ts";
import { execve } from "../../platform/sys/syscalls.ts";

export function handoffEnv(env: Readonly<Record<string, string | undefined>>, handoffFile: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== "METAL_HANDOFF_FILE") out.push(`${k}=${v}`);
  out.push(`METAL_HANDOFF_FILE=${handoffFile}`);
  return out;
}

/** Checks the target is an executable file: after execve fails there is little left to report. */
export function checkExecutable(path: string): void {
  try {
    accessSync(path, constants.X_OK);
  } catch (e) {
    throw new AgentError("handoff", `METAL_HANDOFF=exec:${path}: not an executable file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { path });
  }
}

/** Does not return on success. */
export function execNextStage(path: string, args: readonly string[], env: readonly string[]): never {
  checkExecutable(path);
  const e = execve(path, [path, ...args], env);
  throw new AgentError("handoff", `METAL_HANDOFF=exec:${path}: execve failed: ${errnoName(e)}`, { path, errno: e });
}
