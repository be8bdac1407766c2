import { describe, expect, test } from "bun:test";
import { AgentError } from "../../../src/platform/errors.ts";
import { parseDotConfig, unquote } from "../../../src/kernel/kconfig/dotconfig.ts";

function inputError(fn: () => unknown): AgentError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AgentError);
    expect((e as AgentError).code).toBe("kconfig_input");
    expect((e as AgentError).exitCode).toBe(41);
    return e as AgentError;
  }
  throw new Error("expected a kconfig_input error");
}

describe("parseDotConfig", () => {
  test("reads every value form scripts/kconfig writes", () => {
    const text = [
      "#",
      "# Automatically generated file; DO NOT EDIT.",
      "# Linux/x86 6.1.0 Kernel Configuration",
      "#",
      'CONFIG_CC_VERSION_TEXT="gcc-12 (Debian 12.2.0-14) 12.2.0"',
      "CONFIG_IPV6=y",
      "CONFIG_VIRTIO_NET=m",
      "CONFIG_FOO=n",
      "# CONFIG_IP_PNP is not set",
      "CONFIG_NR_CPUS=8192",
      "CONFIG_ILLEGAL_POINTER_VALUE=0xdead000000000000",
      "CONFIG_NEG=-1",
      'CONFIG_ESCAPED="a \\"b\\" \\\\ c"',
      'CONFIG_EMPTY=""',
      "",
      "   ",
    ].join("\n");
    const c = parseDotConfig(text, "t.config");
    const v = (n: string) => {
      const x = c.options.get(n);
      return x && [x.kind, x.value, x.line];
    };
    expect(v("CC_VERSION_TEXT")).toEqual(["string", "gcc-12 (Debian 12.2.0-14) 12.2.0", 5]);
    expect(v("IPV6")).toEqual(["y", "y", 6]);
    expect(v("VIRTIO_NET")).toEqual(["m", "m", 7]);
    expect(v("FOO")).toEqual(["n", "n", 8]);
    expect(v("IP_PNP")).toEqual(["n", "n", 9]);
    expect(v("NR_CPUS")).toEqual(["int", "8192", 10]);
    expect(v("ILLEGAL_POINTER_VALUE")).toEqual(["hex", "0xdead000000000000", 11]);
    expect(v("NEG")).toEqual(["int", "-1", 12]);
    expect(v("ESCAPED")).toEqual(["string", 'a "b" \\ c', 13]);
    expect(v("EMPTY")).toEqual(["string", "", 14]);
    expect(c.options.size).toBe(10);
  });

  test("CRLF line ends are accepted and a later definition wins", () => {
    const c = parseDotConfig("CONFIG_A=m\r\n# CONFIG_B is not set\r\nCONFIG_A=y\r\n", "crlf");
    expect(c.options.get("A")).toEqual({ kind: "y", value: "y", line: 3 });
    expect(c.options.get("B")?.kind).toBe("n");
  });

  test("an unknown line is an error naming the file and line", () => {
    const e = inputError(() => parseDotConfig("CONFIG_A=y\nCONFIG_B=y\nIPV6=y\n", "/boot/config-x"));
    expect(e.message).toBe('/boot/config-x:3: expected CONFIG_NAME=value, "# CONFIG_NAME is not set", a # comment or a blank line, got "IPV6=y"');
    expect(e.details).toEqual({ source: "/boot/config-x", line: 3 });
  });

  test.each([
    ["CONFIG_A=yes", 'CONFIG_A: expected y, m, n, a decimal or 0x number, or a "quoted string", got "yes"'],
    ["CONFIG_A=", 'got ""'],
    ['CONFIG_A="unterminated', 'got "\\"unterminated"'],
    ['CONFIG_A="a"b"', "quoted string"],
    ['CONFIG_A="ends in backslash\\"', "quoted string"],
    ["CONFIG_A=0x", 'got "0x"'],
    ["CONFIG_A B=y", "expected CONFIG_NAME=value"],
    ["CONFIG_=y", "expected CONFIG_NAME=value"],
    [" CONFIG_A=y", "expected CONFIG_NAME=value"],
  ])("malformed value line %p is rejected", (line, fragment) => {
    const e = inputError(() => parseDotConfig(`CONFIG_OK=y\n${line}\n`, "c"));
    expect(e.message).toStartWith("c:2: ");
    expect(e.message).toContain(fragment);
  });

  test("a file without any option is not a kernel config", () => {
    expect(inputError(() => parseDotConfig("# just a comment\n\n", "empty")).message).toBe("empty: no CONFIG_ lines: not a kernel .config");
    inputError(() => parseDotConfig("", "empty"));
  });

  test("unquote rejects what is not a Kconfig string", () => {
    expect(unquote('"x"')).toBe("x");
    expect(unquote("x")).toBeUndefined();
    expect(unquote('"')).toBeUndefined();
    expect(unquote('"a\\"')).toBeUndefined();
  });
});
