import { describe, expect, test } from "bun:test";
import { parseBootInfo } from "../../src/install/boot-info.ts";

describe("boot-info.yaml", () => {
  test("go-yaml's output of os-installer's Bootinfo (plain and quoted values)", () => {
    const text =
      'initrd: /boot/initrd.img-6.1.0-57-amd64\ncmdline: "console=ttyS0,115200n8 root=UUID=8f3c ro"\nkernel: /boot/vmlinuz-6.1.0-57-amd64\nbootloader_id: metal-debian\n';
    expect(parseBootInfo(text)).toEqual({
      kernel: "/boot/vmlinuz-6.1.0-57-amd64",
      initrd: "/boot/initrd.img-6.1.0-57-amd64",
      cmdline: "console=ttyS0,115200n8 root=UUID=8f3c ro",
      bootloaderId: "metal-debian",
    });
  });

  test("single quotes, comments, an empty initrd, an unknown newer field", () => {
    const text = "# written by install.sh\nkernel: '/boot/vmlinuz'\ninitrd: \"\"\ncmdline: 'it''s quoted' # note\nbootloader_id: x\nfuture: 1\n";
    expect(parseBootInfo(text)).toEqual({ kernel: "/boot/vmlinuz", initrd: "", cmdline: "it's quoted", bootloaderId: "x" });
  });

  test("missing fields are all named", () => {
    expect(() => parseBootInfo("initrd: /boot/i\n")).toThrow("missing or empty: kernel, cmdline");
  });

  test("a relative kernel path, a duplicate key, a block scalar and a non key-value line are errors", () => {
    expect(() => parseBootInfo("kernel: vmlinuz\ncmdline: x\n")).toThrow("kernel: expected an absolute path");
    expect(() => parseBootInfo("kernel: /boot/../../../bzImage\ncmdline: x\n")).toThrow('kernel: expected an absolute path inside the installed OS (no "..")');
    expect(() => parseBootInfo("kernel: /boot/vmlinuz\ninitrd: /../initrd.img\ncmdline: x\n")).toThrow("initrd: expected");
    expect(() => parseBootInfo("kernel: /a\nkernel: /b\ncmdline: x\n")).toThrow("line 2: kernel given twice");
    expect(() => parseBootInfo("kernel: /a\ncmdline: |\n  x\n")).toThrow("unsupported YAML value");
    expect(() => parseBootInfo("kernel /a\n")).toThrow('line 1: expected "key: value"');
  });
});

test("an unterminated quote is an error naming the line", () => {
  expect(() => parseBootInfo('kernel: /a\ncmdline: "abc\n')).toThrow("line 2: unterminated double-quoted value");
  expect(() => parseBootInfo("kernel: /a\ncmdline: 'abc\n")).toThrow("line 2: unterminated single-quoted value");
});
