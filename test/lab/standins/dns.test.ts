import { describe, expect, test } from "bun:test";
import { answer, parseQuery } from "../../../lab/standins/dns.ts";

// A query for AAAA a.test, id 0x1234, RD set (as glibc sends it).
const QUERY = "1234 0100 0001 0000 0000 0000 0161 0474 6573 7400 001c 0001";
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("DNS stand-in codec", () => {
  test("parses the question", () => {
    expect(parseQuery(bytes(QUERY))).toEqual({ id: 0x1234, name: "a.test", type: 28, end: 24 });
  });

  test("answers AAAA with a pointer to the question name", () => {
    const q = parseQuery(bytes(QUERY))!;
    expect(hex(answer(bytes(QUERY), q, new Map([["a.test", "fd00::1"]])))).toBe(
      "1234858000010001000000000161047465737400001c0001" + "c00c001c00010000003c0010" + "fd000000000000000000000000000001",
    );
  });

  test("an unknown name is NXDOMAIN without answers", () => {
    const q = parseQuery(bytes(QUERY))!;
    expect(hex(answer(bytes(QUERY), q, new Map()))).toBe("1234858300010000000000000161047465737400001c0001");
  });

  test("truncated or malformed queries are ignored", () => {
    expect(parseQuery(bytes("1234 0100"))).toBeUndefined();
    expect(parseQuery(bytes("1234 0100 0001 0000 0000 0000 05 61"))).toBeUndefined();
    expect(parseQuery(bytes("1234 0100 0001 0000 0000 0000 0161 00 00"))).toBeUndefined();
  });
});
