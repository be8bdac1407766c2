/**
 * Which command lives in which file, loaded only when asked for: `net up` (and PID 1's
 * first steps) must not pay for parsing and evaluating every other command's modules
 * (the flow, the wire contract, disks, install) before the first link-up. Help, a
 * missing or an unknown command load them all, so commander lists every command.
 */
import type { Command } from "commander";
import type { Context } from "../platform/io/context.ts";

/** Adds one command (with its subcommands) to the program. */
export type Registrar = (program: Command, ctx: Context) => void;

export const COMMANDS: Readonly<Record<string, () => Promise<Registrar>>> = {
  run: async () => (await import("./run-command.ts")).registerRun,
  config: async () => (await import("./config-command.ts")).registerConfig,
  net: async () => (await import("./net.ts")).registerNet,
  lldp: async () => (await import("./lldp-command.ts")).registerLldp,
  token: async () => (await import("./token-command.ts")).registerToken,
  reach: async () => (await import("./reach.ts")).registerReach,
  inventory: async () => (await import("./inventory.ts")).registerInventory,
  bmc: async () => (await import("./bmc-command.ts")).registerBmc,
  disk: async () => (await import("./disk.ts")).registerDisk,
  image: async () => (await import("./image-command.ts")).registerImage,
  kconfig: async () => (await import("./kconfig.ts")).registerKconfig,
  status: async () => (await import("./status-command.ts")).registerStatus,
  clock: async () => (await import("./clock-command.ts")).registerClock,
  watchdog: async () => (await import("./watchdog-command.ts")).registerWatchdog,
  version: async () => (await import("./version-command.ts")).registerVersion,
};

/** The registrars a command line needs: its command's alone, or every one (in the table's order). */
export async function registrarsFor(args: readonly string[]): Promise<Registrar[]> {
  const load = Object.hasOwn(COMMANDS, args[0] ?? "") ? COMMANDS[args[0] as string] : undefined;
  if (load) return [await load()];
  return await Promise.all(Object.values(COMMANDS).map((l) => l()));
}
