/**
 * The three parameters PID 1's policy needs (DEBUG, METAL_DONE, METAL_REBOOT_DELAY),
 * and the format of its log lines (METAL_LOG_FORMAT), read leniently: PID 1 must know what to do even when the rest of the cmdline is
 * invalid (that is itself a fatal error to handle), so a bad value here falls back to
 * its default and is reported instead of thrown. Pure.
 */
import { parseCmdline } from "../config/cmdline.ts";
import { PARAMS, type INIT_PARAM_NAMES } from "../config/params.ts";
import type { InitOptions } from "./policy.ts";

export function initOptionsFromCmdline(text: string): { options: InitOptions; logFormat: "auto" | "json" | "text"; problems: string[] } {
  const { params } = parseCmdline(text);
  const problems: string[] = [];
  const get = <N extends (typeof INIT_PARAM_NAMES)[number]>(name: N) => {
    const raw = params.has(name) ? (params.get(name) ?? null) : undefined;
    const r = PARAMS[name].schema.safeParse(raw);
    if (r.success) return r.data;
    problems.push(`${name}: ${r.error.issues[0]?.message ?? "invalid value"}; using ${PARAMS[name].default}`);
    return PARAMS[name].schema.parse(undefined);
  };
  return {
    options: { debug: get("DEBUG") as boolean, done: get("METAL_DONE") as InitOptions["done"], rebootDelayMs: get("METAL_REBOOT_DELAY") as number },
    logFormat: get("METAL_LOG_FORMAT") as "auto" | "json" | "text",
    problems,
  };
}
