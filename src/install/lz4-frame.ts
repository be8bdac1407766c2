/**
 * LZ4 frame decoding in the agent's own process, through Debian's liblz4 (the library the
 * `lz4` tool runs on, already in the initramfs) over bun:ffi: the image's bytes go from the
 * HTTP body to tar's pipe with no `lz4` process and no extra pipe between (docs/install.md,
 * "Throughput": 0.6-0.8 s of CPU less per GiB here than `lz4 -d` in a pipe).
 *
 * The frame API (lz4/lz4@5ff8396 lib/lz4frame.h:379-487, v1.9.4): one decompression
 * context per stream; LZ4F_decompress reads up to *srcSize bytes and writes up to *dstSize,
 * reports both back, and returns a hint (0 = the frame is complete) or an error code.
 * After a frame it stops at the frame's end; the next bytes start a new frame (as
 * `lz4 -d` reads concatenated frames). The frame's content checksum, when it has one
 * (`lz4` writes one by default), is checked by the library at the frame's end.
 *
 * Memory: one output buffer of 4 MiB (the largest block) per stream, reused: each run of
 * output is handed on and awaited before the next call overwrites it.
 */
import { CString, dlopen, FFIType, ptr, type Pointer } from "bun:ffi";

const { ptr: P, u32, u64 } = FFIType;

const LZ4F_VERSION = 100;
/** The frame format's magic (lz4frame.h), little-endian on the wire: 04 22 4d 18. */
const FRAME_MAGIC = 0x184d2204;
/** `lz4 -l` (the legacy format the kernel's initramfs unpacker reads): the frame API does not. */
const LEGACY_MAGIC = 0x184c2102;
/** Skippable frames: 0x184D2A50 to 0x184D2A5F (lz4frame.h). */
const SKIPPABLE_MAGIC = 0x184d2a50;
const SKIPPABLE_MASK = 0xfffffff0;
const OUT_BYTES = 4 << 20;

export const LIBLZ4 = "liblz4.so.1";

function openLiblz4() {
  return dlopen(LIBLZ4, {
    LZ4F_getVersion: { args: [], returns: u32 },
    LZ4F_createDecompressionContext: { args: [P, u32], returns: u64 },
    LZ4F_freeDecompressionContext: { args: [P], returns: u64 },
    LZ4F_decompress: { args: [P, P, P, P, P, P], returns: u64 },
    LZ4F_isError: { args: [u64], returns: u32 },
    LZ4F_getErrorName: { args: [u64], returns: P },
  }).symbols;
}

type Liblz4 = ReturnType<typeof openLiblz4>;
let shared: Liblz4 | undefined;
function liblz4(): Liblz4 {
  shared ??= openLiblz4();
  return shared;
}

/** What is wrong with the library here, or undefined (checked before any byte is downloaded). */
export function checkLiblz4(): string | undefined {
  try {
    const v = liblz4().LZ4F_getVersion();
    return v === LZ4F_VERSION ? undefined : `${LIBLZ4} has frame API version ${v}, expected ${LZ4F_VERSION}`;
  } catch (e) {
    return `cannot load ${LIBLZ4} (Debian's liblz4-1): ${(e as Error).message}`;
  }
}

/** The compressed stream is not a good LZ4 frame stream: what, and from which compressed byte on (the library does not say where in its input). */
export class Lz4Error extends Error {
  override readonly name = "Lz4Error";
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(`lz4: ${reason} (at or after compressed byte ${offset})`);
  }
}

/** Receives each run of decoded bytes; the buffer is overwritten once the promise resolves. */
export type Lz4Sink = (bytes: Uint8Array) => Promise<void>;

export interface Lz4Decoder {
  /** Decodes one chunk of the stream into `out`; rejects with Lz4Error on a bad stream, or with what `out` threw. */
  push(chunk: Uint8Array, out: Lz4Sink): Promise<void>;
  /** The stream ended: throws Lz4Error when it ended inside a frame, or before any byte. */
  finish(): void;
  /** Frees the library's context (idempotent); a push still awaiting its sink stops there. */
  close(): void;
}

/** A decoder for one stream (throws when liblz4 cannot be loaded: checkLiblz4 first). */
export function lz4Decoder(): Lz4Decoder {
  const lib = liblz4();
  const handle = new BigUint64Array(1);
  const rc = lib.LZ4F_createDecompressionContext(ptr(handle), LZ4F_VERSION);
  if (lib.LZ4F_isError(rc)) throw new Error(`${LIBLZ4}: cannot create a decompression context: ${errorName(lib, rc)}`);
  const dctx = Number(handle[0]) as Pointer;
  const out = new Uint8Array(OUT_BYTES);
  const outP = ptr(out);
  // [0] = *dstSizePtr, [1] = *srcSizePtr: in-out arguments of LZ4F_decompress.
  const sizes = new BigUint64Array(2);
  const dstSizeP = ptr(sizes, 0);
  const srcSizeP = ptr(sizes, 8);
  let closed = false;
  /** Compressed bytes read; every successful call reads at least one, so 0 = nothing yet. */
  let consumed = 0;
  /** The last hint: 0 between frames (and before the first). */
  let hint = 0n;

  const fail = (reason: string): never => {
    throw new Lz4Error(reason, consumed);
  };
  /**
   * The first 4 bytes of the frame that starts at a frame boundary, gathered across chunks
   * (a stream may arrive a byte at a time): checked before liblz4 reads them, so junk,
   * the legacy format and a stream shorter than a magic are named, not "unknown frame type"
   * or "ended inside a frame". `headLen` 4 = the current frame's magic was checked.
   */
  const head = new Uint8Array(4);
  let headLen = 0;
  const checkStart = (chunk: Uint8Array, off: number) => {
    if (headLen === 4) return;
    const take = Math.min(4 - headLen, chunk.byteLength - off);
    head.set(chunk.subarray(off, off + take), headLen);
    headLen += take;
    const why = magicProblem(head.subarray(0, headLen));
    if (why) fail(why);
  };

  return {
    async push(chunk, sink) {
      if (chunk.byteLength === 0) return;
      let off = 0;
      for (;;) {
        if (closed) throw new Error("the lz4 decoder was closed");
        checkStart(chunk, off);
        sizes[0] = BigInt(OUT_BYTES);
        sizes[1] = BigInt(chunk.byteLength - off);
        // With nothing left to read (srcSize 0) the call only drains what the context holds.
        const r = lib.LZ4F_decompress(dctx, outP, dstSizeP, ptr(chunk, Math.min(off, chunk.byteLength - 1)), srcSizeP, null);
        if (lib.LZ4F_isError(r)) fail(errorName(lib, r));
        const read = Number(sizes[1]);
        const wrote = Number(sizes[0]);
        off += read;
        consumed += read;
        hint = r;
        // A frame ended (0): the next byte starts a new frame and its magic.
        if (r === 0n) headLen = 0;
        if (wrote > 0) await sink(out.subarray(0, wrote));
        // Done with this chunk once it is read and nothing is held back: the frame ended, or
        // the output did not fill. Not calling again after a frame's end matters: with no
        // input left liblz4 answers the next frame header's size (7), not the 0 just said.
        if (off >= chunk.byteLength && (r === 0n || wrote < OUT_BYTES)) return;
      }
    },
    finish() {
      if (consumed === 0) fail("the stream is empty: no lz4 frame");
      if (headLen > 0 && headLen < 4 && consumed === headLen) fail(`not an lz4 frame: the stream is ${consumed} byte(s) long, shorter than a frame's 4-byte magic`);
      if (headLen > 0 && headLen < 4) fail(`the stream ended ${headLen} byte(s) into the magic of a frame after the last one`);
      if (hint !== 0n) fail(`the stream ended inside a frame (${hint} more bytes expected)`);
    },
    close() {
      if (closed) return;
      closed = true;
      lib.LZ4F_freeDecompressionContext(dctx);
    },
  };
}

const hex = (b: Uint8Array): string => [...b].map((x) => x.toString(16).padStart(2, "0")).join(" ");

/**
 * What is wrong with the first bytes of a frame (up to 4, the magic, little-endian), or
 * undefined while they may still become a frame's or a skippable frame's magic. Pure.
 */
export function magicProblem(b: Uint8Array): string | undefined {
  const fits = (magic: number, mask = 0xffffffff) => b.every((x, i) => ((x ^ (magic >>> (8 * i))) & (mask >>> (8 * i)) & 0xff) === 0);
  if (fits(FRAME_MAGIC) || fits(SKIPPABLE_MAGIC, SKIPPABLE_MASK)) return undefined;
  if (b.byteLength === 4 && fits(LEGACY_MAGIC)) return "the legacy lz4 format (lz4 -l) is not read: the image must be packed with lz4's frame format";
  if (b.byteLength === 4) {
    const magic = new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
    return `not an lz4 frame: magic 0x${magic.toString(16).padStart(8, "0")}, expected 0x${FRAME_MAGIC.toString(16)}`;
  }
  if (fits(LEGACY_MAGIC)) return undefined;
  return `not an lz4 frame: it starts with ${hex(b)}, not the magic 0x${FRAME_MAGIC.toString(16)} (04 22 4d 18)`;
}

function errorName(lib: Liblz4, code: bigint): string {
  const p = lib.LZ4F_getErrorName(code);
  return p === null ? `error ${code}` : new CString(p).toString();
}
