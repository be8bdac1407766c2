/**
 * DNS messages (RFC 1035 4.1) for the one question the agent asks: the AAAA (or, to
 * explain a failure, the A) records of a host name. Pure: a query encoder and a
 * response decoder that checks every bound (a truncated or hostile answer is a
 * MalformedDnsError, never an out-of-range read), follows name compression with a hop
 * limit, and keeps only what the resolver decides on.
 */

export const TYPE_A = 1;
export const TYPE_CNAME = 5;
export const TYPE_AAAA = 28;
export const CLASS_IN = 1;

/** RCODE values (RFC 1035 4.1.1, RFC 6895). */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

export class MalformedDnsError extends Error {
  override readonly name = "MalformedDnsError";
}

/** A host name as DNS labels, or why it cannot be one (RFC 1035 2.3.4: labels 1..63 bytes, the name at most 253 characters). */
export function hostLabels(name: string): string[] | { readonly error: string } {
  const n = name.endsWith(".") ? name.slice(0, -1) : name;
  if (n === "" || n.length > 253) return { error: "expected 1 to 253 characters" };
  const labels = n.split(".");
  for (const l of labels) {
    if (l.length < 1 || l.length > 63) return { error: `label "${l}" must be 1 to 63 characters` };
    if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/i.test(l)) return { error: `label "${l}" may hold only letters, digits, "-" and "_" (IDNs as punycode)` };
  }
  return labels.map((l) => l.toLowerCase());
}

/** A standard query (opcode 0, RD set: the RA's server may be a recursive one) with one question of `type`, class IN. */
export function encodeQuery(id: number, name: string, type: number): Uint8Array {
  const labels = hostLabels(name);
  if (!Array.isArray(labels)) throw new RangeError(`DNS name "${name}": ${labels.error}`);
  const qname = labels.reduce((n, l) => n + 1 + l.length, 1);
  const out = new Uint8Array(12 + qname + 4);
  const v = new DataView(out.buffer);
  v.setUint16(0, id & 0xffff);
  v.setUint16(2, 0x0100); // RD
  v.setUint16(4, 1); // QDCOUNT
  let o = 12;
  for (const l of labels) {
    out[o++] = l.length;
    for (let i = 0; i < l.length; i++) out[o++] = l.charCodeAt(i);
  }
  out[o++] = 0;
  v.setUint16(o, type);
  v.setUint16(o + 2, CLASS_IN);
  return out;
}

export interface DnsResponse {
  readonly id: number;
  readonly rcode: number;
  /** TC: the answer did not fit the datagram. */
  readonly truncated: boolean;
  readonly question: { readonly name: string; readonly type: number } | undefined;
  /** The AAAA addresses of the answer section (any owner: a CNAME chain's end is what the server resolved), in order. */
  readonly aaaa: readonly string[];
  /** A records in the answer section (counted, never used: the boot network is IPv6 only). */
  readonly aCount: number;
}

/** Longest chain of compression pointers followed in one name. */
const MAX_POINTER_HOPS = 16;

/** Reads a (possibly compressed) name at `off`; returns it and the offset after it in the message. */
function readName(msg: Uint8Array, off: number): { name: string; next: number } {
  const labels: string[] = [];
  let pos = off;
  let next = -1;
  for (let hops = 0; ; ) {
    if (pos >= msg.byteLength) throw new MalformedDnsError(`name at byte ${off} runs past the end (${msg.byteLength} bytes)`);
    const len = msg[pos] as number;
    if (len === 0) {
      if (next < 0) next = pos + 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      if (pos + 1 >= msg.byteLength) throw new MalformedDnsError(`compression pointer at byte ${pos} is cut off`);
      if (++hops > MAX_POINTER_HOPS) throw new MalformedDnsError(`name at byte ${off}: more than ${MAX_POINTER_HOPS} compression pointers (a loop)`);
      if (next < 0) next = pos + 2;
      pos = ((len & 0x3f) << 8) | (msg[pos + 1] as number);
      continue;
    }
    if ((len & 0xc0) !== 0) throw new MalformedDnsError(`label type 0x${(len & 0xc0).toString(16)} at byte ${pos} is not supported`);
    if (pos + 1 + len > msg.byteLength) throw new MalformedDnsError(`label at byte ${pos} (${len} bytes) runs past the end`);
    labels.push(String.fromCharCode(...msg.subarray(pos + 1, pos + 1 + len)).toLowerCase());
    pos += 1 + len;
  }
  return { name: labels.join("."), next };
}

function ipv6Text(b: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((b[i] as number) << 8) | (b[i + 1] as number)).toString(16));
  // RFC 5952: the longest run (>1) of zero groups becomes "::".
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (best < 0) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

/** Decodes a response; throws MalformedDnsError for anything that is not one. */
export function decodeResponse(msg: Uint8Array): DnsResponse {
  if (msg.byteLength < 12) throw new MalformedDnsError(`${msg.byteLength} bytes: shorter than the 12-byte header`);
  const v = new DataView(msg.buffer, msg.byteOffset, msg.byteLength);
  const flags = v.getUint16(2);
  if ((flags & 0x8000) === 0) throw new MalformedDnsError("QR is 0: a query, not a response");
  const qd = v.getUint16(4);
  const an = v.getUint16(6);
  let off = 12;
  let question: DnsResponse["question"];
  for (let i = 0; i < qd; i++) {
    const q = readName(msg, off);
    if (q.next + 4 > msg.byteLength) throw new MalformedDnsError("question runs past the end");
    if (i === 0) question = { name: q.name, type: v.getUint16(q.next) };
    off = q.next + 4;
  }
  const aaaa: string[] = [];
  let aCount = 0;
  for (let i = 0; i < an; i++) {
    const r = readName(msg, off);
    if (r.next + 10 > msg.byteLength) throw new MalformedDnsError(`answer ${i + 1} of ${an}: header runs past the end`);
    const type = v.getUint16(r.next);
    const cls = v.getUint16(r.next + 2);
    const rdlen = v.getUint16(r.next + 8);
    const rdata = r.next + 10;
    if (rdata + rdlen > msg.byteLength) throw new MalformedDnsError(`answer ${i + 1} of ${an}: ${rdlen} bytes of data run past the end`);
    if (cls === CLASS_IN && type === TYPE_AAAA) {
      if (rdlen !== 16) throw new MalformedDnsError(`answer ${i + 1}: AAAA with ${rdlen} bytes (expected 16)`);
      aaaa.push(ipv6Text(msg.subarray(rdata, rdata + 16)));
    } else if (cls === CLASS_IN && type === TYPE_A) aCount++;
    off = rdata + rdlen;
  }
  return { id: v.getUint16(0), rcode: flags & 0x0f, truncated: (flags & 0x0200) !== 0, question, aaaa, aCount };
}
