/**
 * The agent's resolver: AAAA queries over UDP to the DNS servers the router
 * advertisements carry (RDNSS, RFC 8106), and to no other. Not getaddrinfo: Bun's
 * lookup goes through glibc (nsswitch.conf, /etc/hosts, resolv.conf), which asks A and
 * AAAA, folds NXDOMAIN, NODATA and SERVFAIL into two codes (ENOTFOUND, EAI_AGAIN) and
 * waits 5 s x 2 attempts per silent server; here every failure is named (DnsError) and
 * bounded: `tries` x `timeoutMs` per server (default 2 x 1000 ms), at most 3 servers
 * (glibc's MAXNS, as resolv.ts writes them). See docs/boot-chain.md "Names".
 *
 * Per server: an answer with AAAA records is the result; NXDOMAIN or NODATA are final
 * (the zone says so; then one A query tells "no AAAA" from "only A records"); SERVFAIL,
 * REFUSED, a port that is closed (ICMP port unreachable on the connected socket) or
 * silence moves on to the next server. IP literals are returned as they are.
 */
import dgram from "node:dgram";
import { isIP } from "node:net";
import { DnsError, type ServerFailure } from "./dns-error.ts";
import { decodeResponse, encodeQuery, hostLabels, TYPE_A, TYPE_AAAA, type DnsResponse } from "./dns-message.ts";
import { verdict } from "./verdict.ts";

export const DNS_TIMEOUT_MS = 1_000;
export const DNS_TRIES = 2;
export const MAX_SERVERS = 3;

export interface ResolverOptions {
  /** The servers to ask, read at each resolution (the RAs' RDNSS, as the network stage wrote them). */
  readonly servers: () => readonly string[];
  /** 53; tests use another. */
  readonly port?: number;
  readonly timeoutMs?: number;
  readonly tries?: number;
}

type Asked = { kind: "response"; r: DnsResponse } | { kind: ServerFailure; detail: string };

/** One query to one server: the first response that answers it, or what went wrong, within `tries` x `timeoutMs`. */
function ask(server: string, port: number, name: string, type: number, timeoutMs: number, tries: number): Promise<Asked> {
  const id = Math.floor(Math.random() * 0x10000);
  const query = encodeQuery(id, name, type);
  return new Promise((resolve) => {
    const sock = dgram.createSocket({ type: "udp6" });
    let sent = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let malformed: string | undefined;
    let finished = false;
    // The whole ask is bounded even if a callback never comes (a connect that fails silently).
    const deadline = setTimeout(() => done({ kind: "silent", detail: `no answer within ${tries} × ${timeoutMs} ms` }), tries * timeoutMs + 50);
    const done = (a: Asked) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(deadline);
      sock.removeAllListeners("message");
      sock.removeAllListeners("error");
      sock.on("error", () => undefined);
      try {
        sock.close();
      } catch {
        /* closed already */
      }
      resolve(a);
    };
    const send = () => {
      if (sent >= tries) {
        done(malformed ? { kind: "malformed", detail: malformed } : { kind: "silent", detail: `no answer to ${tries} × ${timeoutMs} ms` });
        return;
      }
      sent++;
      timer = setTimeout(send, timeoutMs);
      try {
        sock.send(query, (e) => {
          if (e) done(failed(e as NodeJS.ErrnoException));
        });
      } catch (e) {
        done(failed(e as NodeJS.ErrnoException));
      }
    };
    const failed = (e: NodeJS.ErrnoException): Asked =>
      e.code === "ECONNREFUSED" ? { kind: "not_listening", detail: "port closed (ICMP port unreachable)" } : { kind: "unreachable", detail: `${e.code ?? e.message}` };
    sock.on("error", (e: NodeJS.ErrnoException) => done(failed(e)));
    sock.on("message", (m) => {
      let r: DnsResponse;
      try {
        r = decodeResponse(new Uint8Array(m.buffer, m.byteOffset, m.byteLength));
      } catch (e) {
        malformed = (e as Error).message;
        return;
      }
      if (verdict(r, { id, name, type }).kind !== "stray") done({ kind: "response", r });
    });
    // Bun calls back without an error when connect(2) failed (no route): check that the socket is connected.
    sock.connect(port, server, () => {
      try {
        sock.remoteAddress();
      } catch {
        done({ kind: "unreachable", detail: "no route to it (the UDP socket cannot connect)" });
        return;
      }
      send();
    });
  });
}

const label = (s: string, port: number) => (port === 53 ? s : `[${s}]:${port}`);

export class Resolver {
  readonly #opts: ResolverOptions;
  constructor(opts: ResolverOptions) {
    this.#opts = opts;
  }

  /** The IPv6 addresses of `host` (a literal: itself). Throws DnsError. */
  async aaaa(host: string): Promise<readonly string[]> {
    const bare = host.replace(/^\[(.*)\]$/, "$1");
    if (isIP(bare) !== 0) return [bare];
    // RFC 6761 6.3: localhost is the loopback, never asked of a DNS server.
    if (/^(.+\.)?localhost\.?$/i.test(bare)) return ["::1"];
    const labels = hostLabels(bare);
    if (!Array.isArray(labels)) throw new DnsError(bare, "nxdomain", [], `${bare}: not a host name DNS can hold: ${labels.error}`);
    const name = labels.join(".");
    const port = this.#opts.port ?? 53;
    const timeoutMs = this.#opts.timeoutMs ?? DNS_TIMEOUT_MS;
    const tries = this.#opts.tries ?? DNS_TRIES;
    const servers = this.#opts.servers().slice(0, MAX_SERVERS);
    if (servers.length === 0) throw new DnsError(name, "no_server", [], `cannot resolve ${name}: no DNS server from the router advertisements (RDNSS)`);
    const said: string[] = [];
    let last: ServerFailure = "silent";
    for (const server of servers) {
      const a = await ask(server, port, name, TYPE_AAAA, timeoutMs, tries);
      if (a.kind !== "response") {
        said.push(`${label(server, port)}: ${a.kind} (${a.detail})`);
        last = a.kind;
        continue;
      }
      const v = verdict(a.r, { id: a.r.id, name, type: TYPE_AAAA });
      if (v.kind === "addresses") return v.addresses;
      if (v.kind === "server") {
        said.push(`${label(server, port)}: ${v.failure}${v.failure === "rcode" ? ` ${v.rcode}` : ""}`);
        last = v.failure;
        continue;
      }
      if (v.kind === "name" && v.failure === "nxdomain") throw new DnsError(name, "nxdomain", [server], `${name}: no such name (NXDOMAIN from DNS server ${label(server, port)})`);
      // NODATA: does the name hold A records (an IPv4-only entry in an IPv6-only boot network)?
      const four = await ask(server, port, name, TYPE_A, timeoutMs, tries);
      if (four.kind === "response" && four.r.rcode === 0 && four.r.aCount > 0)
        throw new DnsError(name, "only_a", [server], `${name}: only A (IPv4) records, no AAAA (DNS server ${label(server, port)}); the boot network is IPv6 only`);
      throw new DnsError(name, "nodata", [server], `${name}: the name exists but has no AAAA record (NODATA from DNS server ${label(server, port)})`);
    }
    throw new DnsError(name, last, servers, `cannot resolve ${name}: no usable answer from the DNS servers of the router advertisements: ${said.join("; ")}`);
  }
}
