/**
 * DNS stand-in (UDP): answers AAAA queries for the configured names, an empty NOERROR
 * for other types of a known name, NXDOMAIN otherwise. Enough for getaddrinfo through
 * a resolv.conf that points here (as the network stage writes it from the RA's RDNSS).
 */
import dgram from "node:dgram";
import ipaddr from "ipaddr.js";

export interface DnsQuery {
  readonly id: number;
  readonly name: string;
  readonly type: number;
  /** Offset just past the question (the answer section starts here). */
  readonly end: number;
}

/** Parses the first question of a query; undefined for anything malformed. */
export function parseQuery(msg: Uint8Array): DnsQuery | undefined {
  if (msg.byteLength < 12) return undefined;
  const v = new DataView(msg.buffer, msg.byteOffset, msg.byteLength);
  if (v.getUint16(4) < 1) return undefined;
  const labels: string[] = [];
  let off = 12;
  for (;;) {
    if (off >= msg.byteLength) return undefined;
    const len = msg[off] ?? 0;
    if (len === 0) break;
    if (len > 63 || off + 1 + len > msg.byteLength) return undefined;
    labels.push(new TextDecoder().decode(msg.subarray(off + 1, off + 1 + len)));
    off += 1 + len;
  }
  off += 1;
  if (off + 4 > msg.byteLength) return undefined;
  return { id: v.getUint16(0), name: labels.join(".").toLowerCase(), type: v.getUint16(off), end: off + 4 };
}

export const TYPE_AAAA = 28;

export function answer(msg: Uint8Array, q: DnsQuery, records: ReadonlyMap<string, string>): Uint8Array {
  const addr = records.get(q.name);
  const question = msg.subarray(12, q.end);
  const withAnswer = addr !== undefined && q.type === TYPE_AAAA;
  const out = new Uint8Array(12 + question.byteLength + (withAnswer ? 28 : 0));
  const v = new DataView(out.buffer);
  v.setUint16(0, q.id);
  // QR=1, opcode 0, AA=1, RD copied; RA=1; rcode 0 or 3 (NXDOMAIN).
  v.setUint16(2, 0x8400 | (((msg[2] ?? 0) & 0x01) << 8) | 0x0080 | (addr === undefined ? 3 : 0));
  v.setUint16(4, 1);
  v.setUint16(6, withAnswer ? 1 : 0);
  out.set(question, 12);
  if (withAnswer) {
    let o = 12 + question.byteLength;
    v.setUint16(o, 0xc00c); // name: pointer to the question
    v.setUint16(o + 2, TYPE_AAAA);
    v.setUint16(o + 4, 1); // class IN
    v.setUint32(o + 6, 60); // TTL
    v.setUint16(o + 10, 16);
    out.set(ipaddr.IPv6.parse(addr).toByteArray(), o + 12);
    o += 28;
  }
  return out;
}

export interface DnsStandin {
  readonly queries: string[];
  stop(): Promise<void>;
}

export async function startDns(host: string, port: number, records: ReadonlyMap<string, string>): Promise<DnsStandin> {
  const sock = dgram.createSocket({ type: "udp6", ipv6Only: true });
  const queries: string[] = [];
  sock.on("message", (m, rinfo) => {
    const q = parseQuery(new Uint8Array(m));
    if (!q) return;
    queries.push(`${q.name}/${q.type}`);
    sock.send(answer(new Uint8Array(m), q, records), rinfo.port, rinfo.address);
  });
  await new Promise<void>((res, rej) => {
    sock.once("error", rej);
    sock.bind(port, host, () => res());
  });
  return { queries, stop: () => new Promise<void>((r) => sock.close(() => r())) };
}
