/**
 * Options shared by the commands that talk to servers (run, token, reach): where the
 * cmdline comes from, the uuid override, where files go and which sysfs is read (for
 * the lab and tests), parsed into `Config` and the agent's paths. The services built
 * from them are the composition root's (src/agent/compose.ts).
 */
import type { Command } from "commander";
import type { AgentPaths } from "../agent/compose.ts";
import type { Config } from "../config/config.ts";
import { AgentError } from "../platform/errors.ts";
import { normaliseUuid } from "../platform/ids/uuid.ts";
import type { Context } from "../platform/io/context.ts";
import { loadConfig } from "./read-cmdline.ts";

export interface AgentOptions {
  cmdline?: string;
  file?: string;
  uuid?: string;
  runDir?: string;
  sysfs?: string;
}

export function addAgentOptions(cmd: Command): Command {
  return cmd
    .option("--cmdline <string>", "use this cmdline text instead of /proc/cmdline")
    .option("--file <path>", "read the cmdline from this file")
    .option("--uuid <uuid>", "machine uuid (overrides METAL_UUID and DMI)")
    .option("--run-dir <dir>", "where the token file and handoff.json go", "/run/metal")
    .option("--sysfs <dir>", "sysfs root read instead of /sys (DMI; run: also NICs, inventory, BMC vendor, disks, EFI)", "/sys");
}

export async function agentConfig(ctx: Context, opts: AgentOptions): Promise<Config> {
  const config = await loadConfig(ctx.io, opts);
  if (opts.uuid === undefined) return config;
  const uuid = normaliseUuid(opts.uuid);
  if (uuid === undefined) {
    throw new AgentError("usage", `--uuid ${JSON.stringify(opts.uuid)}: expected a machine UUID (8-4-4-4-12 hex digits; the apiserver takes nothing else)`, {});
  }
  return { ...config, uuid };
}

/** --run-dir (no trailing slash) and --sysfs. */
export function agentPaths(opts: AgentOptions): AgentPaths {
  return { runDir: (opts.runDir ?? "/run/metal").replace(/\/+$/, ""), sysRoot: opts.sysfs ?? "/sys" };
}
