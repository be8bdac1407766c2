import { describe, expect, test } from "bun:test";
import { decodeCmdlineBytes, parseCmdline } from "../../src/config/cmdline.ts";

const params = (s: string) => Object.fromEntries(parseCmdline(s).params);

describe("parseCmdline splits like the kernel", () => {
  test("a real legacy PXE cmdline", () => {
    expect(params("console=ttyS0,115200n8 ip=dhcp carrier_timeout=10 PIXIE_API_URL=http://[fd00::1]:8080/certs DEBUG=1")).toEqual({
      console: "ttyS0,115200n8",
      ip: "dhcp",
      carrier_timeout: "10",
      PIXIE_API_URL: "http://[fd00::1]:8080/certs",
      DEBUG: "1",
    });
  });

  test("a Debian installer-style cmdline with a bare flag and an initrd path", () => {
    expect(params("BOOT_IMAGE=/vmlinuz-6.1.0-28-amd64 root=UUID=4c2b-11 ro quiet splash")).toEqual({
      BOOT_IMAGE: "/vmlinuz-6.1.0-28-amd64",
      root: "UUID=4c2b-11",
      ro: null,
      quiet: null,
      splash: null,
    });
  });

  test("quotes group a value with spaces and are removed", () => {
    expect(params('a="b c" d=e')).toEqual({ a: "b c", d: "e" });
  });

  test("a quoted whole word keeps key and value", () => {
    expect(params('"key=a b" x')).toEqual({ key: "a b", x: null });
  });

  test("a quoted bare word is one flag", () => {
    expect(params('"hello world" z=1')).toEqual({ "hello world": null, z: "1" });
  });

  test("quotes in the middle of a value stay, as in the kernel", () => {
    expect(params('k=a"b c"d')).toEqual({ k: 'a"b c"d' });
  });

  test("an unterminated quote runs to the end", () => {
    expect(params('k="a b c')).toEqual({ k: "a b c" });
  });

  test("only the first = splits", () => {
    expect(params("root=PARTUUID=abc=def")).toEqual({ root: "PARTUUID=abc=def" });
  });

  test("the last duplicate wins", () => {
    expect(params("console=tty0 console=ttyS0,115200 console=ttyS1")).toEqual({ console: "ttyS1" });
  });

  test("empty values are empty strings, not flags", () => {
    expect(params('a= b="" c')).toEqual({ a: "", b: "", c: null });
  });

  test("-- ends kernel parameters; the rest goes to init", () => {
    const p = parseCmdline("quiet METAL_MODE=l3 -- single METAL_MODE=pxe");
    expect(Object.fromEntries(p.params)).toEqual({ quiet: null, METAL_MODE: "l3" });
    expect(p.initArgs).toEqual(["single", "METAL_MODE=pxe"]);
  });

  test("tabs, newlines and repeated spaces separate", () => {
    expect(params("  a=1\t\tb=2\n c  \n")).toEqual({ a: "1", b: "2", c: null });
  });

  test("empty input gives nothing", () => {
    expect(parseCmdline("").params.size).toBe(0);
    expect(parseCmdline("   ").params.size).toBe(0);
  });

  test("non-ASCII bytes survive as U+FFFD and do not split words", () => {
    const bytes = new Uint8Array([...Buffer.from("a=x"), 0xff, 0xfe, ...Buffer.from("y b=ü\n")]);
    const text = decodeCmdlineBytes(bytes);
    expect(params(text)).toEqual({ a: "x\uFFFD\uFFFDy", b: "ü" });
  });
});
