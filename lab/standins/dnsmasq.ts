/**
 * The lab's DNS server: Debian's dnsmasq (package dnsmasq-base) in the lab router's
 * namespace, on the address the RAs carry as RDNSS, authoritative for the lab domain
 * only: AAAA records for the names it is given (metal-boot, the apiserver, the image
 * cache), no A records, NXDOMAIN for any other name in the domain, REFUSED outside it
 * (no upstream: the lab has no network). Every query and its answer goes to a log file
 * in the lab's directory (--log-queries=extra), which parseDnsLog reads.
 *
 * Why dnsmasq (not unbound, nsd or knot-resolver): dnsmasq-base is the binary alone, with
 * no service that starts on install, no system user and nothing in /etc that runs at
 * boot (unbound's and nsd's packages start a daemon on the host); one process in the
 * foreground, configured fully on its command line, up in a few ms; and its query log
 * names each query with its answer (NXDOMAIN, NODATA-IPv6, the address), which is what
 * the lab asserts on. What it does not do: answer SERVFAIL by itself (a sub-domain
 * forwarded to an upstream that is down gets REFUSED; the agent treats both alike).
 *
 * The caller spawns it (inside the namespace) and ends it by its PID.
 */
import { readFileSync } from "node:fs";
import { boundUdpPorts } from "./ntp.ts";
import { waitFor } from "../base/wait.ts";

export const DNS_PORT = 53;

export interface DnsRecord {
  /** A name under the lab domain (metal-boot.chain.lab). */
  readonly name: string;
  readonly aaaa?: readonly string[];
  /** IPv4 addresses: only to build a misconfigured zone (a name with A records and no AAAA). */
  readonly a?: readonly string[];
}

export interface LabDnsOptions {
  readonly listen: string;
  readonly port?: number;
  /** The domain it is authoritative for (NXDOMAIN for unknown names in it). */
  readonly domain: string;
  readonly records: readonly DnsRecord[];
  /** Sub-domains forwarded to an upstream (addr or addr#port): one that is down makes a REFUSED (the SERVFAIL family). */
  readonly forward?: readonly { readonly domain: string; readonly server: string }[];
  readonly logFile: string;
}

/** dnsmasq's argv: no config file, no /etc/hosts, no resolv.conf, no DHCP; bound to `listen` only, root, foreground. */
export function dnsmasqArgv(o: LabDnsOptions): string[] {
  const argv = [
    "dnsmasq",
    "--keep-in-foreground",
    "--conf-file=/dev/null",
    "--no-resolv",
    "--no-hosts",
    "--no-poll",
    "--bind-interfaces",
    `--listen-address=${o.listen}`,
    `--port=${o.port ?? DNS_PORT}`,
    "--user=root",
    "--group=root",
    "--pid-file=",
    // No cache: every query reaches the log with its answer (and a changed zone applies at once).
    "--cache-size=0",
    "--log-queries=extra",
    `--log-facility=${o.logFile}`,
    `--local=/${o.domain}/`,
  ];
  for (const r of o.records) argv.push(`--host-record=${[r.name, ...(r.aaaa ?? []), ...(r.a ?? [])].join(",")}`);
  for (const f of o.forward ?? []) argv.push(`--server=/${f.domain}/${f.server}`);
  return argv;
}

export interface DnsLogEntry {
  /** dnsmasq's serial number of the query (links a query to its answer). */
  readonly serial: number;
  /** AAAA, A, ... */
  readonly type: string;
  readonly name: string;
  /** The client's address. */
  readonly from: string;
  /** What it answered: an address, NXDOMAIN, NODATA-IPv6, REFUSED, ... (undefined: no answer logged yet). */
  readonly answer: string | undefined;
}

/** The queries in a dnsmasq log written with --log-queries=extra, with their answers, in order. Pure. */
export function parseDnsLog(text: string): DnsLogEntry[] {
  const bySerial = new Map<number, { serial: number; type: string; name: string; from: string; answer: string | undefined }>();
  for (const line of text.split("\n")) {
    const q = /\]: (\d+) \S+ query\[(\w+)\] (\S+) from (\S+)/.exec(line);
    if (q) {
      bySerial.set(Number(q[1]), { serial: Number(q[1]), type: q[2] as string, name: (q[3] as string).toLowerCase(), from: q[4] as string, answer: undefined });
      continue;
    }
    const a = /\]: (\d+) \S+ (?:config|reply|cached|forwarded) (?:error is (\S+)|(\S+) is (\S+))/.exec(line);
    if (a) {
      const e = bySerial.get(Number(a[1]));
      if (e && e.answer === undefined) e.answer = a[2] ?? a[4];
    }
  }
  return [...bySerial.values()];
}

export interface SpawnedDns {
  readonly pid: number;
  readonly exitCode: number | null;
  text?(): string;
}

export interface LabDns {
  readonly proc: SpawnedDns;
  readonly options: LabDnsOptions;
  /** The queries logged so far. */
  queries(): DnsLogEntry[];
}

/** Starts dnsmasq through `spawn` (which runs the argv in the lab's namespace) and waits up to 10 s for it to bind UDP on `listen`. */
export async function startLabDns(o: LabDnsOptions, spawn: (argv: string[]) => SpawnedDns): Promise<LabDns> {
  const p = spawn(dnsmasqArgv(o));
  const port = o.port ?? DNS_PORT;
  await waitFor(
    () => {
      if (p.exitCode !== null) throw new Error(`dnsmasq exited ${p.exitCode} before binding [${o.listen}]:${port}: ${p.text?.().trim() ?? ""}`);
      try {
        return boundUdpPorts(readFileSync(`/proc/${p.pid}/net/udp6`, "utf8"), o.listen).has(port);
      } catch {
        return false;
      }
    },
    10_000,
    `dnsmasq (PID ${p.pid}) bound to [${o.listen}]:${port}`,
  );
  return {
    proc: p,
    options: o,
    queries: () => {
      try {
        return parseDnsLog(readFileSync(o.logFile, "utf8"));
      } catch {
        return [];
      }
    },
  };
}
