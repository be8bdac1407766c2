import { describe, expect, test } from "bun:test";
import { isMac, macBytes, macText, normaliseMac } from "../../../src/platform/ids/mac.ts";

describe("the MAC rule (the apiserver's mac rule)", () => {
  test("six hex pairs joined by ':', either case, pass", () => {
    for (const m of ["52:54:00:12:34:56", "AA:BB:CC:DD:EE:FF", "aA:0b:C0:00:ff:10", "00:00:00:00:00:00"]) expect([m, isMac(m)]).toEqual([m, true]);
  });

  test("anything else is refused: '-' or no separator, five or seven pairs, one digit, spaces, other letters", () => {
    for (const m of [
      "52-54-00-12-34-56",
      "525400123456",
      "52:54:00:12:34",
      "52:54:00:12:34:56:78",
      "52:54:0:12:34:56",
      " 52:54:00:12:34:56",
      "52:54:00:12:34:56\n",
      "52:54:00:12:34:5g",
      "Eth1/1(Port1)",
      "",
    ]) {
      expect([m, isMac(m)]).toEqual([m, false]);
    }
  });

  test("a typed MAC ('-' or ':', either case) is normalised to lower case with ':'", () => {
    const typed = ["52:54:00:AB:cd:EF", "52-54-00-AB-CD-EF", "52:54:00:ab:cd", "eth0", "5254.00ab.cdef"];
    expect(typed.map(normaliseMac)).toEqual(["52:54:00:ab:cd:ef", "52:54:00:ab:cd:ef", undefined, undefined, undefined]);
  });

  test("bytes print as lower-case colon pairs, any length", () => {
    expect(macText(Uint8Array.from([0x0a, 0xbc, 0, 1, 0xff, 0x10]))).toBe("0a:bc:00:01:ff:10");
    expect(macText(Uint8Array.from([0x00, 0x80, 0xc2]))).toBe("00:80:c2");
    expect(macText(new Uint8Array())).toBe("");
  });

  test("a MAC parses to its six bytes; a malformed one is refused naming it", () => {
    expect([...macBytes("52:54:00:AB:cd:ef")]).toEqual([0x52, 0x54, 0x00, 0xab, 0xcd, 0xef]);
    expect(() => macBytes("52:54:00:6d:68")).toThrow(`MAC "52:54:00:6d:68": expected six hex pairs separated by ':' (52:54:00:12:34:56)`);
    expect(() => macBytes("52-54-00-6d-68-01")).toThrow(`MAC "52-54-00-6d-68-01": expected`);
  });
});
