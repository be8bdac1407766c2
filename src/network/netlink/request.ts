/**
 * Request encoders: dumps (RTM_GETLINK/GETADDR/GETROUTE with NLM_F_DUMP) and the
 * link-up RTM_NEWLINK (ifi_flags=IFF_UP, ifi_change=IFF_UP, NLM_F_ACK). Pure.
 */
import * as K from "./constants.ts";
import { Writer } from "./cursor.ts";

function header(w: Writer, type: number, flags: number, seq: number): number {
  const at = w.length;
  w.u32(0).u16(type).u16(flags).u32(seq).u32(0);
  return at;
}

function finish(w: Writer, at: number): Uint8Array {
  w.setU32(at, w.length - at);
  return w.finish();
}

export function dumpLinksRequest(seq: number): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_GETLINK, K.NLM_F_REQUEST | K.NLM_F_DUMP, seq);
  w.u8(K.AF_UNSPEC).u8(0).u16(0).i32(0).u32(0).u32(0); // ifinfomsg
  return finish(w, at);
}

export function dumpAddrsRequest(seq: number, family = K.AF_INET6): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_GETADDR, K.NLM_F_REQUEST | K.NLM_F_DUMP, seq);
  w.u8(family).u8(0).u8(0).u8(0).u32(0); // ifaddrmsg
  return finish(w, at);
}

export function dumpRoutesRequest(seq: number, family = K.AF_INET6): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_GETROUTE, K.NLM_F_REQUEST | K.NLM_F_DUMP, seq);
  w.u8(family).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u32(0); // rtmsg
  return finish(w, at);
}

/** Sets or clears IFF_UP on one link; the kernel answers with an ACK (or an errno). */
export function setLinkUpRequest(seq: number, ifindex: number, up: boolean): Uint8Array {
  const w = new Writer();
  const at = header(w, K.RTM_NEWLINK, K.NLM_F_REQUEST | K.NLM_F_ACK, seq);
  w.u8(K.AF_UNSPEC)
    .u8(0)
    .u16(0)
    .i32(ifindex)
    .u32(up ? K.IFF_UP : 0)
    .u32(K.IFF_UP);
  return finish(w, at);
}
