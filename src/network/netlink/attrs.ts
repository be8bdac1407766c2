/**
 * Netlink attributes (struct nlattr): 16-bit length including the 4-byte header,
 * 16-bit type (NLA_F_NESTED / NLA_F_NET_BYTEORDER stripped), payload padded to 4.
 * Every attribute is kept, known or not, as raw bytes; typed readers pick them out.
 */
import { NLA_HDRLEN, NLA_TYPE_MASK } from "./constants.ts";
import { NetlinkDecodeError, align4, view, type Writer } from "./cursor.ts";

export interface Attr {
  readonly type: number;
  readonly nested: boolean;
  readonly data: Uint8Array;
}

export function decodeAttrs(buf: Uint8Array, what = "attribute"): Attr[] {
  const out: Attr[] = [];
  const dv = view(buf);
  let off = 0;
  while (off < buf.byteLength) {
    if (buf.byteLength - off < NLA_HDRLEN) throw new NetlinkDecodeError(`${what}: ${buf.byteLength - off} trailing bytes, shorter than an attribute header`);
    const len = dv.getUint16(off, true);
    const rawType = dv.getUint16(off + 2, true);
    if (len < NLA_HDRLEN) throw new NetlinkDecodeError(`${what} type ${rawType & NLA_TYPE_MASK} at offset ${off}: length ${len} is shorter than its header`);
    if (off + len > buf.byteLength)
      throw new NetlinkDecodeError(`${what} type ${rawType & NLA_TYPE_MASK} at offset ${off}: length ${len} runs past the end (${buf.byteLength - off} bytes left)`);
    out.push({ type: rawType & NLA_TYPE_MASK, nested: (rawType & 0x8000) !== 0, data: buf.subarray(off + NLA_HDRLEN, off + len) });
    off += align4(len);
  }
  return out;
}

export const findAttr = (attrs: readonly Attr[], type: number): Attr | undefined => attrs.find((a) => a.type === type);

function sized(a: Attr, n: number, what: string): DataView {
  if (a.data.byteLength < n) throw new NetlinkDecodeError(`${what}: attribute type ${a.type} has ${a.data.byteLength} bytes, expected ${n}`);
  return view(a.data);
}
export const attrU8 = (a: Attr, what: string): number => sized(a, 1, what).getUint8(0);
export const attrU32 = (a: Attr, what: string): number => sized(a, 4, what).getUint32(0, true);
/** A NUL-terminated string attribute (IFLA_IFNAME). */
export function attrString(a: Attr): string {
  const end = a.data.indexOf(0);
  return new TextDecoder().decode(end === -1 ? a.data : a.data.subarray(0, end));
}

export function encodeAttr(w: Writer, type: number, data: Uint8Array): void {
  w.u16(NLA_HDRLEN + data.byteLength)
    .u16(type)
    .bytes(data)
    .pad();
}
export function encodeAttrU32(w: Writer, type: number, v: number): void {
  const b = new Uint8Array(4);
  view(b).setUint32(0, v >>> 0, true);
  encodeAttr(w, type, b);
}
