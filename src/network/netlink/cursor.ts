/**
 * Bounds-checked little cursor over a byte buffer. Every read checks the bound and
 * throws one typed error naming what was being read, so a malformed message from
 * the kernel (or a test) never yields garbage.
 */
export class NetlinkDecodeError extends Error {
  override readonly name = "NetlinkDecodeError";
}

export function view(buf: Uint8Array): DataView {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

export function need(buf: Uint8Array, off: number, len: number, what: string): void {
  if (off < 0 || len < 0 || off + len > buf.byteLength) {
    throw new NetlinkDecodeError(`${what}: needs ${len} bytes at offset ${off}, have ${Math.max(0, buf.byteLength - off)}`);
  }
}

export const align4 = (n: number): number => (n + 3) & ~3;

/** Grows as needed; `reserve` returns an offset to fill in later (nlmsg_len, nla_len). */
export class Writer {
  private buf = new Uint8Array(256);
  private dv = view(this.buf);
  length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buf.byteLength) return;
    const next = new Uint8Array(Math.max(this.buf.byteLength * 2, this.length + n));
    next.set(this.buf);
    this.buf = next;
    this.dv = view(next);
  }
  u8(v: number): this {
    this.ensure(1);
    this.dv.setUint8(this.length, v);
    this.length += 1;
    return this;
  }
  u16(v: number): this {
    this.ensure(2);
    this.dv.setUint16(this.length, v, true);
    this.length += 2;
    return this;
  }
  i32(v: number): this {
    this.ensure(4);
    this.dv.setInt32(this.length, v, true);
    this.length += 4;
    return this;
  }
  u32(v: number): this {
    this.ensure(4);
    this.dv.setUint32(this.length, v >>> 0, true);
    this.length += 4;
    return this;
  }
  bytes(b: Uint8Array): this {
    this.ensure(b.byteLength);
    this.buf.set(b, this.length);
    this.length += b.byteLength;
    return this;
  }
  pad(): this {
    while (this.length % 4 !== 0) this.u8(0);
    return this;
  }
  setU16(at: number, v: number): void {
    this.dv.setUint16(at, v, true);
  }
  setU32(at: number, v: number): void {
    this.dv.setUint32(at, v >>> 0, true);
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}
