/**
 * The collect step's summary lines the direct lab and the chain both print for their
 * machine: its switch connections as the apiserver stand-in made them (with a switch
 * table), what the stand-in knew of it at each allocation try (when the stand-ins ran),
 * and one line per clock query of the agent. Read from the stand-ins' state dir
 * (connections.json, liveliness.json; standins.json says they ran).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { clockSummary, type AgentRecord } from "../base/serial-console.ts";
import { livelinessLines } from "../standins/liveliness-summary.ts";
import { connectionsLine } from "../standins/lldpd.ts";

export interface MachineSummary {
  /** "connected: leaf01 Ethernet0, leaf02 Ethernet0" once the machine registered against the switch table. */
  readonly connections?: string;
  /** The lines to print, in order: connections, liveliness, clock. */
  readonly lines: readonly string[];
}

const readIfThere = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, "utf8") : undefined);

/** Machine `uuid`'s summary from the stand-ins' state dir `standinsDir`; `switchTable`: the stand-in had one (a leaf pair). */
export function machineSummary(standinsDir: string, uuid: string, switchTable: boolean, agentRecords: readonly (AgentRecord & { readonly ms: number })[]): MachineSummary {
  const connections = switchTable ? connectionsLine(readIfThere(join(standinsDir, "connections.json")), uuid) : undefined;
  const ran = existsSync(join(standinsDir, "standins.json"));
  return {
    ...(connections ? { connections } : {}),
    lines: [
      ...(switchTable ? [connections ?? "connected: nothing yet (the machine did not register)"] : []),
      ...(ran ? livelinessLines(readIfThere(join(standinsDir, "liveliness.json")), uuid) : []),
      ...clockSummary(agentRecords),
    ],
  };
}
