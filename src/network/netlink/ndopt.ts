/**
 * ND options carried by RTM_NEWNDUSEROPT (RFC 4861 §4.6 framing): RDNSS (RFC 8106
 * §5.1) and DNSSL (§5.2). Lifetimes are seconds, 0xffffffff = infinity. Options
 * other than these are kept as raw bytes.
 */
import { ND_OPT_DNSSL, ND_OPT_RDNSS } from "./constants.ts";
import { ipv6Text } from "./addr-text.ts";
import { NetlinkDecodeError, view } from "./cursor.ts";

export type NdOption =
  | { readonly type: typeof ND_OPT_RDNSS; readonly lifetime: number; readonly servers: readonly string[] }
  | { readonly type: typeof ND_OPT_DNSSL; readonly lifetime: number; readonly domains: readonly string[] }
  | { readonly type: number; readonly raw: Uint8Array };

export const isRdnss = (o: NdOption): o is Extract<NdOption, { servers: readonly string[] }> => "servers" in o;
export const isDnssl = (o: NdOption): o is Extract<NdOption, { domains: readonly string[] }> => "domains" in o;

/** DNS wire names (RFC 1035 labels, no compression), as DNSSL carries them; zero padding ends the list. */
function decodeDomains(b: Uint8Array): string[] {
  const out: string[] = [];
  let off = 0;
  while (off < b.byteLength) {
    if (b[off] === 0) {
      off++; // padding, or an empty name
      continue;
    }
    const labels: string[] = [];
    for (;;) {
      if (off >= b.byteLength) throw new NetlinkDecodeError(`DNSSL: domain name runs past the end of the option`);
      const n = b[off] ?? 0;
      off++;
      if (n === 0) break;
      if (n > 63) throw new NetlinkDecodeError(`DNSSL: label length ${n} at offset ${off - 1} exceeds 63 (compression is not allowed)`);
      if (off + n > b.byteLength) throw new NetlinkDecodeError(`DNSSL: label of ${n} bytes runs past the end of the option`);
      labels.push(new TextDecoder().decode(b.subarray(off, off + n)));
      off += n;
    }
    out.push(labels.join("."));
  }
  return out;
}

export function decodeNdOptions(buf: Uint8Array): NdOption[] {
  const out: NdOption[] = [];
  const dv = view(buf);
  let off = 0;
  while (off < buf.byteLength) {
    if (buf.byteLength - off < 2) throw new NetlinkDecodeError(`ND option at offset ${off}: truncated header`);
    const type = dv.getUint8(off);
    const len8 = dv.getUint8(off + 1);
    if (len8 === 0) throw new NetlinkDecodeError(`ND option type ${type} at offset ${off}: length 0 (invalid per RFC 4861)`);
    const len = len8 * 8;
    if (off + len > buf.byteLength) throw new NetlinkDecodeError(`ND option type ${type} at offset ${off}: length ${len} runs past the end (${buf.byteLength - off} bytes left)`);
    const body = buf.subarray(off, off + len);
    if (type === ND_OPT_RDNSS) {
      if (len < 24 || (len - 8) % 16 !== 0) throw new NetlinkDecodeError(`RDNSS option: length ${len} is not 8 + 16*n with n >= 1`);
      const servers: string[] = [];
      for (let p = 8; p < len; p += 16) servers.push(ipv6Text(body.subarray(p, p + 16), "RDNSS server"));
      out.push({ type: ND_OPT_RDNSS, lifetime: view(body).getUint32(4, false), servers });
    } else if (type === ND_OPT_DNSSL) {
      if (len < 16) throw new NetlinkDecodeError(`DNSSL option: length ${len} is shorter than 16`);
      out.push({ type: ND_OPT_DNSSL, lifetime: view(body).getUint32(4, false), domains: decodeDomains(body.subarray(8)) });
    } else {
      out.push({ type, raw: body.slice() });
    }
    off += len;
  }
  return out;
}
