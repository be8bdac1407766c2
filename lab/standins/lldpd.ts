/**
 * Starts the lab's switches (plan.ts lldpdConf/lldpdArgv): one lldpd per tap inside
 * the lab's namespace, configuration and control sockets in a temp dir lldpd's
 * unprivileged user can reach, and waits (bounded) until each answers `lldpcli show
 * configuration` with its name. The caller stops the processes by PID and removes `dir`.
 */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lldpdArgv, lldpdConf, switchPort, type LabSwitchOs } from "../rig/plan.ts";
import type { SwitchSpec } from "./switches.ts";
import { waitFor } from "../base/wait.ts";

export interface LabSwitch {
  readonly tap: string;
  readonly hostname: string;
  /** How the switch OS configures lldpd (plan.ts lldpdConf; default sonic). */
  readonly os?: LabSwitchOs;
  /** Which port of the leaf the tap is (from 0; default 0). */
  readonly port?: number;
}

/** A fresh directory for the switches' configs and sockets (mode 0755: lldpd runs lldpcli as _lldpd). */
export function switchesDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mh-lldpd-"));
  chmodSync(dir, 0o755);
  return dir;
}

/** Writes each switch's config and spawns it through `spawn` (which records the PID for cleanup); resolves when all are configured. */
export async function startSwitches(
  switches: readonly LabSwitch[],
  dir: string,
  spawn: (argv: string[], name: string) => { readonly exitCode: number | null },
  nsExec: (argv: string[]) => string[],
  timeoutMs = 10_000,
): Promise<void> {
  const procs = switches.map((s) => {
    writeFileSync(`${dir}/lldpd-${s.tap}.conf`, lldpdConf(s.tap, s.hostname, s.os, s.port), { mode: 0o644 });
    return { s, p: spawn(lldpdArgv(s.tap, dir), `lldpd-${s.hostname}`) };
  });
  for (const { s, p } of procs) {
    await waitFor(
      () => {
        if (p.exitCode !== null) throw new Error(`lldpd ${s.hostname} on ${s.tap} exited ${p.exitCode}`);
        const r = Bun.spawnSync(nsExec(["lldpcli", "-u", `${dir}/lldpd-${s.tap}.sock`, "show", "configuration"]), { stdout: "pipe", stderr: "pipe" });
        return r.exitCode === 0 && r.stdout.toString().includes(s.hostname);
      },
      timeoutMs,
      `lldpd ${s.hostname} on ${s.tap} to be configured`,
      100,
    );
    // The conf's lines are applied one by one: the port's own line is the last to show.
    const want = switchPort(s.os ?? "sonic", s.port).alias ?? switchPort(s.os ?? "sonic", s.port).name;
    await waitFor(
      () =>
        Bun.spawnSync(nsExec(["lldpcli", "-u", `${dir}/lldpd-${s.tap}.sock`, "show", "interfaces"]), { stdout: "pipe", stderr: "pipe" })
          .stdout.toString()
          .includes(want),
      timeoutMs,
      `lldpd ${s.hostname} on ${s.tap} to announce ${want}`,
      100,
    );
  }
}

/**
 * The switch table the apiserver stand-in keeps, as metal-core registers these switches
 * (lab/standins/switches.ts): per leaf its ports, SONiC with their alias, Cumulus with
 * the tap's MAC (read in the namespace).
 */
export function switchSpecs(switches: readonly LabSwitch[], nsExec: (argv: string[]) => string[]): SwitchSpec[] {
  const byId = new Map<string, SwitchSpec & { ports: { name: string; alias?: string; mac?: string }[] }>();
  for (const s of switches) {
    const os = s.os ?? "sonic";
    const spec = byId.get(s.hostname) ?? { id: s.hostname, os, ports: [] };
    byId.set(s.hostname, spec);
    const p = switchPort(os, s.port);
    if (os === "sonic") spec.ports.push({ name: p.name, ...(p.alias ? { alias: p.alias } : {}) });
    else {
      const r = Bun.spawnSync(nsExec(["cat", `/sys/class/net/${s.tap}/address`]), { stdout: "pipe", stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`the MAC of ${s.tap}: ${r.stderr.toString().trim()}`);
      spec.ports.push({ name: p.name, mac: r.stdout.toString().trim() });
    }
  }
  return [...byId.values()];
}

/**
 * The lab summary's line for machine `uuid`'s switch connections, from the stand-in's
 * connections.json ({uuid: [{switch, port}]}); undefined when it has not registered.
 */
export function connectionsLine(connectionsJson: string | undefined, uuid: string): string | undefined {
  if (connectionsJson === undefined) return undefined;
  const c = (JSON.parse(connectionsJson) as Record<string, { switch: string; port: string }[]>)[uuid];
  if (c === undefined) return undefined;
  if (c.length === 0)
    return "connected: nothing (no neighbour's identifier matches a port the switches registered; the apiserver registers the machine without switch connections)";
  return `connected: ${c.map((x) => `${x.switch} ${x.port}`).join(", ")}`;
}
