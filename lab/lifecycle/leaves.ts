/**
 * The stand-ins step's leaves, as the direct lab and the chain start them: an lldpd per
 * port (lab/standins/lldpd.ts), each waited for until it announces its port, and the
 * switch table the apiserver stand-in reads (--switches), as metal-core would register
 * these leaves. The caller's `spawn` puts each lldpd on its clean-up stack.
 */
import { writeFileSync } from "node:fs";
import { startSwitches, switchSpecs, type LabSwitch } from "../standins/lldpd.ts";

export interface Leaves {
  readonly switches: readonly LabSwitch[];
  /** The switches' configs and control sockets (lldpd runs lldpcli as its own user: it must reach them). */
  readonly dir: string;
  readonly spawn: (argv: string[], name: string) => { readonly exitCode: number | null };
  /** `argv` run inside the lab's namespace. */
  readonly nsExec: (argv: string[]) => string[];
  /** Where the switch table goes; omitted: none is written. */
  readonly table?: string;
}

/** Starts the leaves; resolves with the switch table's path (when one was asked for) once every switch is configured. */
export async function startLeaves(l: Leaves): Promise<string | undefined> {
  await startSwitches(l.switches, l.dir, l.spawn, l.nsExec);
  if (l.table === undefined) return undefined;
  writeFileSync(l.table, JSON.stringify(switchSpecs(l.switches, l.nsExec), null, 1) + "\n");
  return l.table;
}
