import { describe, expect, test } from "bun:test";
import { EnvelopeError, EnvelopeReader, decodeEnvelopes, encodeEnvelope } from "../../../src/clients/api/envelope.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));
const text = (s: string) => new TextEncoder().encode(s);

describe("encodeEnvelope", () => {
  test("flag byte, 4-byte big-endian length, message", () => {
    expect(hex(encodeEnvelope(0, text('{"uuid":"a"}')))).toBe("00" + "0000000c" + Buffer.from('{"uuid":"a"}').toString("hex"));
    expect(hex(encodeEnvelope(2, text("{}")))).toBe("02000000027b7d");
  });

  test("an empty message is a bare header", () => {
    expect(hex(encodeEnvelope(0, new Uint8Array()))).toBe("0000000000");
  });

  test("flags outside one byte are refused", () => {
    expect(() => encodeEnvelope(256, new Uint8Array())).toThrow(EnvelopeError);
  });
});

describe("decodeEnvelopes", () => {
  test("splits two envelopes and keeps an incomplete tail", () => {
    const r = decodeEnvelopes(bytes("00 00000002 7b7d  02 00000002 7b7d  00 0000"));
    expect(r.envelopes.map((e) => [e.flags, hex(e.data)])).toEqual([
      [0, "7b7d"],
      [2, "7b7d"],
    ]);
    expect(hex(r.rest)).toBe("000000");
  });

  test("a header announcing more bytes than present stays in rest", () => {
    const r = decodeEnvelopes(bytes("00 00000005 7b7d"));
    expect(r.envelopes).toEqual([]);
    expect(hex(r.rest)).toBe("00000000057b7d");
  });

  test("decodes from a view at an offset into a larger buffer", () => {
    const big = bytes("ffff 00 00000002 7b7d ffff");
    const r = decodeEnvelopes(big.subarray(2, 9));
    expect(r.envelopes.map((e) => hex(e.data))).toEqual(["7b7d"]);
    expect(r.rest.byteLength).toBe(0);
  });

  test("unknown flag bits are refused", () => {
    expect(() => decodeEnvelopes(bytes("04 00000000"))).toThrow("unknown flags 0x04");
  });

  test("a compressed envelope is refused (no compression negotiated)", () => {
    expect(() => decodeEnvelopes(bytes("01 00000000"))).toThrow("compressed");
  });

  test("a length above the limit is refused before buffering", () => {
    expect(() => decodeEnvelopes(bytes("00 ffffffff"))).toThrow("exceeds the limit");
    expect(() => decodeEnvelopes(bytes("00 00000011"), 16)).toThrow("length 17 exceeds the limit of 16 bytes");
  });
});

describe("EnvelopeReader", () => {
  test("reassembles envelopes split at every byte", () => {
    const wire = new Uint8Array([...encodeEnvelope(0, text('{"a":1}')), ...encodeEnvelope(2, text("{}"))]);
    const r = new EnvelopeReader();
    const got = [];
    for (const b of wire) got.push(...r.push(new Uint8Array([b])));
    r.finish();
    expect(got.map((e) => [e.flags, new TextDecoder().decode(e.data)])).toEqual([
      [0, '{"a":1}'],
      [2, "{}"],
    ]);
  });

  test("a stream cut inside an envelope is reported as truncated", () => {
    const r = new EnvelopeReader();
    r.push(bytes("00 00000004 7b7d"));
    expect(() => r.finish()).toThrow("stream truncated: 7 byte(s)");
  });

  test("a stream without the end-of-stream envelope is reported", () => {
    const r = new EnvelopeReader();
    r.push(bytes("00 00000002 7b7d"));
    expect(() => r.finish()).toThrow("without the end-of-stream envelope");
  });

  test("data after end-of-stream is refused", () => {
    const r = new EnvelopeReader();
    expect(() => r.push(bytes("02 00000002 7b7d 00 00000002 7b7d"))).toThrow("after the end-of-stream");
  });
});
