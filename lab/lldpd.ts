/**
 * Starts the lab's switches (plan.ts lldpdConf/lldpdArgv): one lldpd per tap inside
 * the lab's namespace, configuration and control sockets in a temp dir lldpd's
 * unprivileged user can reach, and waits (bounded) until each answers `lldpcli show
 * configuration` with its name. The caller stops the processes by PID and removes `dir`.
 */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lldpdArgv, lldpdConf } from "./plan.ts";
import { waitFor } from "./wait.ts";

export interface LabSwitch {
  readonly tap: string;
  readonly hostname: string;
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
    writeFileSync(`${dir}/lldpd-${s.tap}.conf`, lldpdConf(s.tap, s.hostname), { mode: 0o644 });
    return { s, p: spawn(lldpdArgv(s.tap, dir), `lldpd-${s.hostname}`) };
  });
  for (const { s, p } of procs) {
    await waitFor(() => {
      if (p.exitCode !== null) throw new Error(`lldpd ${s.hostname} on ${s.tap} exited ${p.exitCode}`);
      const r = Bun.spawnSync(nsExec(["lldpcli", "-u", `${dir}/lldpd-${s.tap}.sock`, "show", "configuration"]), { stdout: "pipe", stderr: "pipe" });
      return r.exitCode === 0 && r.stdout.toString().includes(s.hostname);
    }, timeoutMs, `lldpd ${s.hostname} on ${s.tap} to be configured`, 100);
  }
}
