import { expect, test } from "bun:test";
import { escapeText, wireText } from "../../../src/network/lldp/text.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

test("printable ASCII and non-ASCII letters pass unchanged", () => {
  expect(wireText(bytes("leaf01 swp1/Ethernet-12 ü é 交换机"))).toBe("leaf01 swp1/Ethernet-12 ü é 交换机");
});

test("C0 controls, DEL and C1 controls are escaped as \\xNN", () => {
  expect(wireText(bytes("a\u0000b\u0007c\u001bd\u007fe\u0085f\r\n"))).toBe("a\\x00b\\x07c\\x1bd\\x7fe\\x85f\\x0d\\x0a");
});

test("format characters and line separators are escaped as \\u{N}", () => {
  expect(escapeText("x\u202ey\u200bz\u2028w\ufeff")).toBe("x\\u{202e}y\\u{200b}z\\u{2028}w\\u{feff}");
});

test("a backslash is doubled, so an escape on the wire cannot pass for one of ours", () => {
  expect(wireText(bytes("a\\x1bb"))).toBe("a\\\\x1bb");
});

test("bytes that are not UTF-8 are escaped one by one", () => {
  expect(wireText(Uint8Array.from([0x6c, 0xc3, 0x28, 0x5c, 0x20, 0x7e]))).toBe("l\\xc3(\\\\ ~");
});

test("an escaped string contains no control character at all", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  // eslint-disable-next-line no-control-regex
  expect(wireText(all)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(wireText(bytes(String.fromCharCode(...Array.from({ length: 0x60 }, (_, i) => i + 0x80))))).not.toMatch(/[\u0080-\u009f]/);
});
