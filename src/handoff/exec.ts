/**
 * METAL_HANDOFF=exec:/path: replace this process with the next stage (execve(2), via
 * bun:ffi: Bun has no exec of its own, and as PID 1 the next stage must *become* PID
 * 1, not run as a child). The environment is ours plus METAL_HANDOFF_FILE.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { accessSync, constants } from "node:fs";
import { AgentError } from "../errors.ts";

/** NUL-terminated C string buffers plus a NULL-terminated pointer array over them. */
function cStringArray(items: readonly string[]): { array: BigUint64Array; keep: Buffer[] } {
  const keep = items.map((s) => Buffer.from(`${s}\0`, "utf8"));
  const array = new BigUint64Array(items.length + 1);
  keep.forEach((b, i) => (array[i] = BigInt(ptr(b))));
  array[items.length] = 0n;
  return { array, keep };
}

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
  const libc = dlopen("libc.so.6", {
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
  const file = Buffer.from(`${path}\0`, "utf8");
  const argv = cStringArray([path, ...args]);
  const envp = cStringArray(env);
  libc.symbols.execve(ptr(file), ptr(argv.array), ptr(envp.array));
  throw new AgentError("handoff", `METAL_HANDOFF=exec:${path}: execve failed`, { path });
}
