/**
 * Connect protocol streaming envelopes (connectrpc.com/docs/protocol, "Streaming"):
 * 1 flag byte, a 4-byte big-endian length, then the message (JSON here). Flag 0x01
 * marks a compressed message (we never negotiate compression, so it is refused),
 * 0x02 the end-of-stream message. Pure: bytes in, envelopes out; every bound checked.
 */
export const FLAG_COMPRESSED = 0x01;
export const FLAG_END_STREAM = 0x02;
export const HEADER_LEN = 5;
/** Largest message accepted (a Wait allocation is a few KiB). */
export const MAX_MESSAGE_LEN = 4 << 20;

export interface Envelope {
  readonly flags: number;
  readonly data: Uint8Array;
}

export class EnvelopeError extends Error {
  override readonly name = "EnvelopeError";
  /**
   * true: the bytes break the protocol (a bad flag, an oversized length, data after
   * the end); false: the stream was cut short, which a reconnect may fix.
   */
  readonly violation: boolean;
  constructor(message: string, opts: { cut?: boolean } = {}) {
    super(message);
    this.violation = opts.cut !== true;
  }
}

export function encodeEnvelope(flags: number, data: Uint8Array): Uint8Array {
  if (flags < 0 || flags > 0xff) throw new EnvelopeError(`flags ${flags} do not fit one byte`);
  const out = new Uint8Array(HEADER_LEN + data.byteLength);
  const view = new DataView(out.buffer);
  view.setUint8(0, flags);
  view.setUint32(1, data.byteLength, false);
  out.set(data, HEADER_LEN);
  return out;
}

export interface DecodeResult {
  readonly envelopes: readonly Envelope[];
  /** Bytes of an envelope not complete yet (keep them for the next chunk). */
  readonly rest: Uint8Array;
}

/** Splits `buf` into whole envelopes; an incomplete tail comes back as `rest`. */
export function decodeEnvelopes(buf: Uint8Array, maxLen = MAX_MESSAGE_LEN): DecodeResult {
  const envelopes: Envelope[] = [];
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let off = 0;
  while (buf.byteLength - off >= HEADER_LEN) {
    const flags = view.getUint8(off);
    const len = view.getUint32(off + 1, false);
    if ((flags & ~(FLAG_COMPRESSED | FLAG_END_STREAM)) !== 0) throw new EnvelopeError(`envelope at byte ${off}: unknown flags 0x${flags.toString(16).padStart(2, "0")}`);
    if (flags & FLAG_COMPRESSED) throw new EnvelopeError(`envelope at byte ${off}: compressed, but no compression was negotiated`);
    if (len > maxLen) throw new EnvelopeError(`envelope at byte ${off}: length ${len} exceeds the limit of ${maxLen} bytes`);
    if (buf.byteLength - off - HEADER_LEN < len) break;
    envelopes.push({ flags, data: buf.slice(off + HEADER_LEN, off + HEADER_LEN + len) });
    off += HEADER_LEN + len;
  }
  return { envelopes, rest: buf.slice(off) };
}

/**
 * Incremental decoder for a response body: push chunks, take envelopes; `finish()`
 * checks that the stream ended on a boundary with exactly one end-of-stream envelope last.
 */
export class EnvelopeReader {
  #pending: Uint8Array = new Uint8Array();
  #ended = false;

  push(chunk: Uint8Array): readonly Envelope[] {
    // Join only when a partial envelope waits (a keepalive flood arrives as whole envelopes).
    let joined = chunk;
    if (this.#pending.byteLength > 0) {
      joined = new Uint8Array(this.#pending.byteLength + chunk.byteLength);
      joined.set(this.#pending, 0);
      joined.set(chunk, this.#pending.byteLength);
    }
    const { envelopes, rest } = decodeEnvelopes(joined);
    this.#pending = rest;
    for (const e of envelopes) {
      if (this.#ended) throw new EnvelopeError("data after the end-of-stream envelope");
      if (e.flags & FLAG_END_STREAM) this.#ended = true;
    }
    return envelopes;
  }

  finish(): void {
    if (this.#pending.byteLength > 0) throw new EnvelopeError(`stream truncated: ${this.#pending.byteLength} byte(s) of an incomplete envelope at the end`, { cut: true });
    if (!this.#ended) throw new EnvelopeError("stream ended without the end-of-stream envelope", { cut: true });
  }
}
