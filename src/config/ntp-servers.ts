/**
 * NTP server lists as operators write them (METAL_NTP_SERVERS, the config's
 * ntp_servers): comma-separated IPv6 literals (bare or in brackets with a port), IPv4
 * literals, or host names, optionally `:port` (default 123). Pure.
 */
import ipaddr from "ipaddr.js";
/** The NTP port (RFC 4330: UDP 123). */
export const NTP_PORT = 123;

export interface NtpServer {
  /** IP literal (IPv6 without brackets) or host name. */
  readonly host: string;
  readonly port: number;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

function port(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/** One entry -> server, or undefined when it is neither an address nor a host name. */
export function parseNtpServer(text: string): NtpServer | undefined {
  const t = text.trim();
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  if (bracket) {
    const p = bracket[2] === undefined ? NTP_PORT : port(bracket[2]);
    return ipaddr.IPv6.isValid(bracket[1]!) && p !== undefined ? { host: bracket[1]!, port: p } : undefined;
  }
  if (ipaddr.IPv6.isValid(t)) return { host: t, port: NTP_PORT };
  const hp = /^([^:]+)(?::(\d+))?$/.exec(t);
  if (!hp) return undefined;
  const p = hp[2] === undefined ? NTP_PORT : port(hp[2]);
  const host = hp[1]!;
  if (p === undefined) return undefined;
  if (ipaddr.IPv4.isValidFourPartDecimal(host) || HOSTNAME.test(host)) return { host, port: p };
  return undefined;
}

/** A comma-separated list -> servers (duplicates removed), or undefined if any entry is bad or the list is empty. */
export function parseNtpServerList(text: string): NtpServer[] | undefined {
  const out: NtpServer[] = [];
  for (const item of text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const s = parseNtpServer(item);
    if (!s) return undefined;
    if (!out.some((o) => o.host === s.host && o.port === s.port)) out.push(s);
  }
  return out.length > 0 ? out : undefined;
}

/** How a server is written in a log line: `[2001:db8::1]:123`, `ntp.example:123`. */
export function formatNtpServer(s: NtpServer): string {
  return `${s.host.includes(":") ? `[${s.host}]` : s.host}:${s.port}`;
}
