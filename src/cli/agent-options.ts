/**
 * Options shared by the commands that talk to servers (run, token, reach): where the
 * cmdline comes from, the uuid override, and where files go (for the lab and tests).
 */
import type { Command } from "commander";
import type { Config } from "../config/config.ts";
import { AgentError } from "../errors.ts";
import { READ_CAPS } from "../fs/read-bounded.ts";
import type { Services } from "../flow/services.ts";
import type { Context } from "./context.ts";
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
    .option("--sysfs <dir>", "sysfs root to read the DMI uuid from", "/sys");
}

const UUID_OPT = /^[0-9a-fA-F-]{8,64}$/;

export async function agentConfig(ctx: Context, opts: AgentOptions): Promise<Config> {
  const config = await loadConfig(ctx.io, opts);
  if (opts.uuid === undefined) return config;
  if (!UUID_OPT.test(opts.uuid)) {
    throw new AgentError("usage", `--uuid ${JSON.stringify(opts.uuid)}: expected a machine UUID (hex and dashes)`, {});
  }
  return { ...config, uuid: opts.uuid.toLowerCase() };
}

export function agentServices(ctx: Context, opts: AgentOptions): Partial<Services> {
  const dir = (opts.runDir ?? "/run/metal").replace(/\/+$/, "");
  return {
    tokenFile: `${dir}/token`,
    handoffFile: `${dir}/handoff.json`,
    sysRoot: opts.sysfs ?? "/sys",
    readFile: (p) => ctx.io.readFile(p, READ_CAPS.sysfs),
    env: ctx.io.env,
  };
}
