/**
 * The lab's NTP server: Debian's chronyd in the lab router's namespace, on an address of
 * its own on the namespace's loopback (routed to the machine like the other services),
 * serving the host's clock at stratum 8 (`local`: no upstream, the lab has no network).
 * `-x`: chronyd never adjusts the clock it serves (the namespace shares the host's clock).
 * Its config, pid file and log live in the lab's directory; no command socket, no state
 * outside it. The caller spawns it (inside the namespace) and ends it by its PID.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../base/wait.ts";

export const NTP_PORT = 123;
/** chrony's stratum for its local clock: any value 1..15 passes the agent's checks (src/ops/clock/sntp-check.ts). */
export const LAB_NTP_STRATUM = 8;

/** chrony.conf for a server that answers on `addr` only and touches nothing outside `dir`. */
export function chronyConf(addr: string, dir: string): string {
  return [
    "# The lab's NTP server (lab/standins/ntp.ts): the host's clock at a fixed stratum, no upstream.",
    `local stratum ${LAB_NTP_STRATUM}`,
    "allow all",
    `bindaddress ${addr}`,
    `port ${NTP_PORT}`,
    // No command port, no command socket (it would live in /run/chrony).
    "cmdport 0",
    "bindcmdaddress /",
    `pidfile ${join(dir, "chronyd.pid")}`,
    "",
  ].join("\n");
}

/** chronyd's argv: foreground, log to stderr, never set the clock, stay root (its files are in a root-only temp dir). */
export function chronyArgv(conf: string): string[] {
  return ["chronyd", "-d", "-x", "-u", "root", "-f", conf];
}

/** The local ports bound on `addr` in a /proc/<pid>/net/udp6 table (addresses in the kernel's word order). */
export function boundUdpPorts(udp6: string, addr: string): Set<number> {
  const want = procAddr6(addr);
  const out = new Set<number>();
  for (const line of udp6.split("\n").slice(1)) {
    const local = line.trim().split(/\s+/)[1];
    if (!local) continue;
    const [a, port] = local.split(":");
    if (a === want && port) out.add(parseInt(port, 16));
  }
  return out;
}

/** An IPv6 address as /proc/net/*6 writes it: 4 32-bit words, each in host (little-endian) byte order, hex upper case. */
export function procAddr6(addr: string): string {
  const [head = "", tail] = addr.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  if (groups.length !== 8) throw new Error(`${addr}: expected an IPv6 address of 8 groups`);
  const bytes = groups.flatMap((g) => {
    const v = parseInt(g, 16);
    return [v >> 8, v & 0xff];
  });
  let out = "";
  for (let w = 0; w < 4; w++) for (let b = 3; b >= 0; b--) out += (bytes[w * 4 + b] as number).toString(16).padStart(2, "0");
  return out.toUpperCase();
}

export interface SpawnedNtp {
  readonly pid: number;
  readonly exitCode: number | null;
  /** Its output so far, when the spawner keeps it (else `<dir>/chronyd.log` is read). */
  text?(): string;
}

/**
 * Writes the config into `dir`, starts chronyd through `spawn` (which runs the argv in the
 * lab's namespace and logs to `<dir>/chronyd.log`), and waits up to 10 s for it to bind
 * UDP 123 on `addr`. Returns the process: the caller ends it by its PID.
 */
export async function startLabNtp(addr: string, dir: string, spawn: (argv: string[]) => SpawnedNtp): Promise<SpawnedNtp> {
  const conf = join(dir, "chrony.conf");
  writeFileSync(conf, chronyConf(addr, dir), { mode: 0o600 });
  const p = spawn(chronyArgv(conf));
  await waitFor(
    () => {
      if (p.exitCode !== null) throw new Error(`chronyd exited ${p.exitCode} before binding [${addr}]:${NTP_PORT}: ${p.text?.().trim() || readLog(dir)}`);
      try {
        return boundUdpPorts(readFileSync(`/proc/${p.pid}/net/udp6`, "utf8"), addr).has(NTP_PORT);
      } catch {
        return false;
      }
    },
    10_000,
    `chronyd (PID ${p.pid}) bound to [${addr}]:${NTP_PORT}`,
  );
  return p;
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, "chronyd.log"), "utf8").trim();
  } catch {
    return "(no log)";
  }
}
