/**
 * What one DNS response says about a name, for the resolver to act on. Pure.
 *   addresses: NOERROR with AAAA records (a CNAME chain is followed by the server);
 *   name failures, definitive (another server or attempt says the same): NXDOMAIN, or
 *   NOERROR without an AAAA record (NODATA: the name exists, with no IPv6 address);
 *   server failures (another server may do better): SERVFAIL, REFUSED, any other RCODE,
 *   a truncated answer without records (the agent asks over UDP only), or a response
 *   that does not answer our question (wrong id or question: ignored as a stray).
 */
import { RCODE, type DnsResponse } from "./dns-message.ts";

export type Verdict =
  | { readonly kind: "addresses"; readonly addresses: readonly string[] }
  | { readonly kind: "name"; readonly failure: "nxdomain" | "nodata" }
  | { readonly kind: "server"; readonly failure: "servfail" | "refused" | "rcode" | "truncated"; readonly rcode: number }
  | { readonly kind: "stray" };

export function verdict(r: DnsResponse, asked: { readonly id: number; readonly name: string; readonly type: number }): Verdict {
  if (r.id !== asked.id || (r.question !== undefined && (r.question.name !== asked.name.toLowerCase().replace(/\.$/, "") || r.question.type !== asked.type)))
    return { kind: "stray" };
  if (r.rcode === RCODE.NOERROR && r.aaaa.length > 0) return { kind: "addresses", addresses: r.aaaa };
  if (r.rcode === RCODE.NXDOMAIN) return { kind: "name", failure: "nxdomain" };
  if (r.rcode === RCODE.SERVFAIL) return { kind: "server", failure: "servfail", rcode: r.rcode };
  if (r.rcode === RCODE.REFUSED) return { kind: "server", failure: "refused", rcode: r.rcode };
  if (r.rcode !== RCODE.NOERROR) return { kind: "server", failure: "rcode", rcode: r.rcode };
  if (r.truncated) return { kind: "server", failure: "truncated", rcode: r.rcode };
  return { kind: "name", failure: "nodata" };
}
