/**
 * resolv.conf from RA DNS (RFC 8106). Pure: the union of every interface's
 * RDNSS servers and DNSSL domains in a stable order -> the file text. Link-local
 * servers get their zone (%ifname), which glibc and musl accept.
 */
import type { InterfaceMachine } from "./machine.ts";

export interface DnsView {
  readonly servers: readonly string[];
  readonly search: readonly string[];
}

export function collectDns(machines: readonly InterfaceMachine[]): DnsView {
  const servers: string[] = [];
  const search: string[] = [];
  for (const m of machines) {
    for (const s of m.dnsServers.keys()) {
      const v = s.startsWith("fe80:") ? `${s}%${m.name}` : s;
      if (!servers.includes(v)) servers.push(v);
    }
    for (const d of m.dnsSearch.keys()) if (!search.includes(d)) search.push(d);
  }
  return { servers, search };
}

/** glibc reads at most 3 nameservers and 6 search domains (MAXNS, MAXDNSRCH). */
export function renderResolvConf(v: DnsView): string {
  const lines = ["# written by metal-hammer from router advertisements (RDNSS/DNSSL)"];
  for (const s of v.servers.slice(0, 3)) lines.push(`nameserver ${s}`);
  if (v.search.length > 0) lines.push(`search ${v.search.slice(0, 6).join(" ")}`);
  return lines.join("\n") + "\n";
}
