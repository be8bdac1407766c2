/**
 * The nameserver lines of a resolv.conf, in order. The agent's resolver reads the file
 * the network stage wrote from the router advertisements (net/resolv.ts), so the
 * servers it asks are the RAs' RDNSS and no others.
 */
import { readBoundedTextSync } from "../../platform/fs/read-bounded.ts";

/** Pure: the servers of the `nameserver` lines, first occurrence kept. */
export function parseNameservers(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    if (m?.[1] && !out.includes(m[1])) out.push(m[1]);
  }
  return out;
}

/** The servers in `path`; none when it does not exist (yet): the resolver then says no RA carried a DNS server. */
export function raNameservers(path: string): string[] {
  try {
    return parseNameservers(readBoundedTextSync(path, "textFile"));
  } catch {
    return [];
  }
}
