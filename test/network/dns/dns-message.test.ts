import { describe, expect, test } from "bun:test";
import { decodeResponse, encodeQuery, hostLabels, MalformedDnsError, TYPE_A, TYPE_AAAA } from "../../../src/network/dns/dns-message.ts";
import { verdict } from "../../../src/network/dns/verdict.ts";

const hex = (s: string) => Uint8Array.from(Buffer.from(s, "hex"));
// Recorded from dnsmasq 2.90 (Debian 12) authoritative for chain.lab: --local=/chain.lab/
// --host-record=metal-boot.chain.lab,fd00:b007::1 --host-record=onlya.chain.lab,192.0.2.9.
const QUERY_AAAA = "1234010000010000000000000a6d6574616c2d626f6f7405636861696e036c616200001c0001";
const ANSWER_AAAA = "1234858000010001000000000a6d6574616c2d626f6f7405636861696e036c616200001c0001c00c001c0001000000000010fd00b007000000000000000000000001";
const NXDOMAIN = "123581830001000000000000046e6f706505636861696e036c616200001c0001";
const NODATA = "123681800001000000000000056f6e6c796105636861696e036c616200001c0001";
const ONLY_A = "123785800001000100000000056f6e6c796105636861696e036c61620000010001c00c00010001000000000004c0000209";
const REFUSED = "123881850001000000000000076578616d706c6503636f6d00001c0001";

describe("DNS query encoding", () => {
  test("an AAAA query is byte for byte what a stub resolver sends (RD set, one question, class IN)", () => {
    expect(Buffer.from(encodeQuery(0x1234, "metal-boot.chain.lab", TYPE_AAAA)).toString("hex")).toBe(QUERY_AAAA);
  });
  test("a trailing dot and upper case make the same query", () => {
    expect(encodeQuery(0x1234, "Metal-Boot.Chain.Lab.", TYPE_AAAA)).toEqual(hex(QUERY_AAAA));
  });
  test("names DNS cannot hold are refused with the reason", () => {
    expect(hostLabels("a..b")).toEqual({ error: 'label "" must be 1 to 63 characters' });
    expect(hostLabels(`${"x".repeat(64)}.lab`)).toEqual({ error: `label "${"x".repeat(64)}" must be 1 to 63 characters` });
    expect(hostLabels("bad name.lab")).toHaveProperty("error");
    expect(() => encodeQuery(1, "", TYPE_AAAA)).toThrow("expected 1 to 253 characters");
  });
});

describe("DNS response decoding (dnsmasq's own answers)", () => {
  test("an AAAA answer: the address behind a compressed owner name", () => {
    const r = decodeResponse(hex(ANSWER_AAAA));
    expect(r).toEqual({ id: 0x1234, rcode: 0, truncated: false, question: { name: "metal-boot.chain.lab", type: TYPE_AAAA }, aaaa: ["fd00:b007::1"], aCount: 0 });
    expect(verdict(r, { id: 0x1234, name: "metal-boot.chain.lab", type: TYPE_AAAA })).toEqual({ kind: "addresses", addresses: ["fd00:b007::1"] });
  });
  test("NXDOMAIN, NODATA and REFUSED give their verdicts", () => {
    expect(verdict(decodeResponse(hex(NXDOMAIN)), { id: 0x1235, name: "nope.chain.lab", type: TYPE_AAAA })).toEqual({ kind: "name", failure: "nxdomain" });
    expect(verdict(decodeResponse(hex(NODATA)), { id: 0x1236, name: "onlya.chain.lab", type: TYPE_AAAA })).toEqual({ kind: "name", failure: "nodata" });
    expect(verdict(decodeResponse(hex(REFUSED)), { id: 0x1238, name: "example.com", type: TYPE_AAAA })).toEqual({ kind: "server", failure: "refused", rcode: 5 });
  });
  test("an A answer is counted, not used", () => {
    const r = decodeResponse(hex(ONLY_A));
    expect(r.aCount).toBe(1);
    expect(r.aaaa).toEqual([]);
    expect(r.question).toEqual({ name: "onlya.chain.lab", type: TYPE_A });
  });
  test("SERVFAIL (rcode 2) and other rcodes are the server's failure", () => {
    const sf = hex(NXDOMAIN);
    sf[3] = 0x82;
    expect(verdict(decodeResponse(sf), { id: 0x1235, name: "nope.chain.lab", type: TYPE_AAAA })).toEqual({ kind: "server", failure: "servfail", rcode: 2 });
    sf[3] = 0x84;
    expect(verdict(decodeResponse(sf), { id: 0x1235, name: "nope.chain.lab", type: TYPE_AAAA })).toEqual({ kind: "server", failure: "rcode", rcode: 4 });
  });
  test("a response to another id or question is a stray, not an answer", () => {
    const r = decodeResponse(hex(ANSWER_AAAA));
    expect(verdict(r, { id: 0x9999, name: "metal-boot.chain.lab", type: TYPE_AAAA }).kind).toBe("stray");
    expect(verdict(r, { id: 0x1234, name: "other.chain.lab", type: TYPE_AAAA }).kind).toBe("stray");
    expect(verdict(r, { id: 0x1234, name: "metal-boot.chain.lab", type: TYPE_A }).kind).toBe("stray");
  });
  test("a truncated empty answer is the server's failure (the agent asks over UDP only)", () => {
    const tc = hex(NODATA);
    tc[2] = 0x83;
    expect(verdict(decodeResponse(tc), { id: 0x1236, name: "onlya.chain.lab", type: TYPE_AAAA })).toEqual({ kind: "server", failure: "truncated", rcode: 0 });
  });
});

describe("malformed responses are refused, never read past the end", () => {
  const full = hex(ANSWER_AAAA);
  test("every truncation of a valid answer throws MalformedDnsError", () => {
    for (let n = 0; n < full.byteLength; n++) expect(() => decodeResponse(full.subarray(0, n))).toThrow(MalformedDnsError);
  });
  test("a query (QR=0) is not a response", () => {
    expect(() => decodeResponse(hex(QUERY_AAAA))).toThrow("QR is 0");
  });
  test("a compression pointer loop is cut off", () => {
    const loop = hex("123481800001000000000000c00c001c0001");
    expect(() => decodeResponse(loop)).toThrow("compression pointers");
  });
  test("an AAAA record with a length other than 16 is refused", () => {
    const bad = hex(ANSWER_AAAA.replace("0010fd00b007000000000000000000000001", "0004c0000209"));
    expect(() => decodeResponse(bad)).toThrow("AAAA with 4 bytes");
  });
});
