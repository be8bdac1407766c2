/**
 * A host name that did not resolve to an IPv6 address. `failure` says what happened
 * (typed: callers and tests branch on it): the name's own fault (dns_name, exit 16:
 * nxdomain, nodata = no AAAA, only_a = only A records) or the servers' (dns_server,
 * exit 17: none advertised, servfail, refused, another rcode, truncated, malformed,
 * not listening = ICMP port unreachable, unreachable = no route or host unreachable,
 * silent = no answer within the bound).
 * Retryable: a zone being fixed or a server restarting is the kind of network fault the
 * retry window is for.
 */
import { AgentError } from "../../platform/errors.ts";

export type NameFailure = "nxdomain" | "nodata" | "only_a";
export type ServerFailure = "no_server" | "servfail" | "refused" | "rcode" | "truncated" | "malformed" | "not_listening" | "unreachable" | "silent";
export type DnsFailure = NameFailure | ServerFailure;

const NAME_FAILURES: ReadonlySet<string> = new Set<NameFailure>(["nxdomain", "nodata", "only_a"]);

export class DnsError extends AgentError {
  constructor(
    readonly host: string,
    readonly failure: DnsFailure,
    /** The server that said it (name failures), or every server with what it did (server failures). */
    readonly servers: readonly string[],
    message: string,
  ) {
    super(NAME_FAILURES.has(failure) ? "dns_name" : "dns_server", message, { host, dnsFailure: failure, dnsServers: servers }, { retryable: true });
  }
}
