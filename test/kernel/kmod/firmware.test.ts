import { describe, expect, test } from "bun:test";
import { parseModinfoFirmware, parseModulesFirmware, renderModulesFirmware } from "../../../src/kernel/kmod/firmware.ts";

describe("modules.firmware", () => {
  test("modinfo's firmware list round-trips through the image's table; modules without firmware have no line", () => {
    const ice = parseModinfoFirmware("intel/ice/ddp/ice.pkg\n");
    const tg3 = parseModinfoFirmware("tigon/tg3_tso5.bin\ntigon/tg3_tso.bin\n\n");
    const text = renderModulesFirmware(
      new Map([
        ["ice", ice],
        ["e1000e", []],
        ["tg3", tg3],
      ]),
    );
    expect(text).toBe("ice: intel/ice/ddp/ice.pkg\ntg3: tigon/tg3_tso5.bin tigon/tg3_tso.bin\n");
    expect(parseModulesFirmware(text)).toEqual(
      new Map([
        ["ice", ["intel/ice/ddp/ice.pkg"]],
        ["tg3", ["tigon/tg3_tso5.bin", "tigon/tg3_tso.bin"]],
      ]),
    );
  });

  test("paths outside /lib/firmware and lines without a module are refused", () => {
    expect(() => parseModulesFirmware("ice: ../../etc/shadow\n", "f")).toThrow("f:1: firmware paths are relative to /lib/firmware");
    expect(() => parseModulesFirmware("ice intel/ice.pkg\n", "f")).toThrow('f:1: expected "module: firmware ...", got "ice intel/ice.pkg"');
  });
});
