import { describe, expect, test } from "bun:test";
import { filePathNode, formatDevicePath, hardDriveNode, hardDriveOf, loaderPathOf } from "../../../src/install/efi/device-path.ts";
import { guidText } from "../../../src/install/efi/efi-guid.ts";
import {
  bootName,
  bootNumber,
  decodeBootOrder,
  decodeDevicePath,
  decodeLoadOption,
  encodeBootOrder,
  encodeDevicePath,
  encodeLoadOption,
  isNetworkOption,
  LOAD_OPTION_ACTIVE,
  LoadOptionError,
} from "../../../src/install/efi/load-option.ts";
import { EFIBOOT_TESTOS, EFIBOOT_VECTORS, MBR_PATH, vectorHardDrive } from "./efiboot-vectors.ts";
import { HTTP_HEX, MISC_HEX, PXE_HEX, SHELL_HEX, TESTOS_HEX, UIAPP_HEX, hex } from "./vectors.ts";

describe("EFI_LOAD_OPTION (UEFI 2.10 §3.1.3)", () => {
  test("OVMF's PXE option: attributes, description, the MAC and IPv4 nodes, the optional data", () => {
    const o = decodeLoadOption(hex(PXE_HEX));
    expect(o.attributes).toBe(1);
    expect(o.description).toBe("UEFI PXEv4 (MAC:525400123456)");
    expect(o.filePath.map((n) => `${n.type}/${n.subType}/${n.data.length}`)).toEqual(["2/1/8", "1/1/2", "3/11/33", "3/12/23"]);
    expect(Buffer.from(o.filePath[2]!.data.subarray(0, 6)).toString("hex")).toBe("525400123456");
    expect(Buffer.from(o.optionalData).toString("hex")).toBe("4eac0881119f594d850ee21a522c59b2");
    expect(isNetworkOption(o)).toBe(true);
  });

  test("OVMF's HTTP boot option: the same path ending in an empty URI node, network", () => {
    const o = decodeLoadOption(hex(HTTP_HEX));
    expect(o.description).toBe("UEFI HTTPv4 (MAC:525400123456)");
    expect(o.filePath.map((n) => `${n.type}/${n.subType}/${n.data.length}`)).toEqual(["2/1/8", "1/1/2", "3/11/33", "3/12/23", "3/24/0"]);
    expect(isNetworkOption(o)).toBe(true);
  });

  test("efibootmgr's entry (real, from OVMF's NVRAM): HD() and File() nodes, no optional data, not network", () => {
    const o = decodeLoadOption(hex(TESTOS_HEX));
    expect(o.attributes).toBe(1);
    expect(o.description).toBe("testos");
    expect(o.filePath.map((n) => `${n.type}/${n.subType}`)).toEqual(["4/1", "4/4"]);
    // HD(): partition 1, start 0x800, 0x80000 sectors, then the partition GUID (mixed-endian) and GPT markers.
    const hd = Buffer.from(o.filePath[0]!.data);
    expect([hd.readUInt32LE(0), Number(hd.readBigUInt64LE(4)), Number(hd.readBigUInt64LE(12))]).toEqual([1, 0x800, 0x80000]);
    expect(hd.subarray(20, 36).toString("hex")).toBe("3ac2cfbc99d6914dbed20381f5f5b33d");
    expect(new TextDecoder("utf-16le").decode(o.filePath[1]!.data)).toBe("\\EFI\\testos\\grubx64.efi\0");
    expect(o.optionalData.length).toBe(0);
    expect(isNetworkOption(o)).toBe(false);
  });

  test("OVMF's own options (real): disk, UiApp (hidden app), shell: none is network", () => {
    const misc = decodeLoadOption(hex(MISC_HEX));
    expect(misc.description).toBe("UEFI Misc Device");
    expect(misc.filePath.map((n) => `${n.type}/${n.subType}`)).toEqual(["2/1", "1/1"]);
    const ui = decodeLoadOption(hex(UIAPP_HEX));
    expect([ui.attributes, ui.description]).toEqual([0x109, "UiApp"]);
    expect(ui.filePath.map((n) => `${n.type}/${n.subType}`)).toEqual(["4/7", "4/6"]);
    const shell = decodeLoadOption(hex(SHELL_HEX));
    expect(shell.description).toBe("EFI Internal Shell");
    for (const o of [misc, ui, shell]) expect(isNetworkOption(o)).toBe(false);
  });

  test("broken options are refused with what is wrong", () => {
    expect(() => decodeLoadOption(hex("0100000004"))).toThrow(new LoadOptionError("load option: 5 bytes, expected at least 8 (attributes, file path length, description)"));
    expect(() => decodeLoadOption(hex("0100000004007400"))).toThrow("the description has no NUL terminator");
    // FilePathListLength 0x20 but only 4 bytes follow the description.
    expect(() => decodeLoadOption(hex("01000000200041000000" + "7fff0400"))).toThrow('load option "A": file path list of 32 bytes runs past the end (4 left)');
    // A node whose length (2) is below its header.
    expect(() => decodeLoadOption(hex("01000000040041000000" + "04010200"))).toThrow("device path: node 4/1 at byte 0 has length 2 (expected 4..4)");
  });
});

describe("BootOrder (§3.3)", () => {
  test("UINT16 little-endian list, both ways", () => {
    expect(decodeBootOrder(hex("0100000003000200"))).toEqual([1, 0, 3, 2]);
    expect(Buffer.from(encodeBootOrder([4, 0x1a, 1])).toString("hex")).toBe("04001a000100");
    expect(() => decodeBootOrder(hex("010000"))).toThrow("BootOrder: 3 bytes, expected an even number (UINT16 entries)");
  });
  test("Boot#### names", () => {
    expect(bootName(0x1a)).toBe("Boot001A");
    expect(bootNumber("Boot001A")).toBe(0x1a);
    expect(bootNumber("BootOrder")).toBeUndefined();
    expect(bootNumber("Boot001a")).toBeUndefined();
  });
});

describe("encoding a boot entry as efibootmgr does (libefiboot's bytes)", () => {
  const hexOf = (b: Uint8Array) => Buffer.from(b).toString("hex");

  test.each(EFIBOOT_VECTORS.map((v) => [v.text, v] as const))("%s: the agent's bytes are efi_loadopt_create's", (_t, v) => {
    const option = {
      attributes: LOAD_OPTION_ACTIVE,
      description: v.description,
      filePath: [hardDriveNode(vectorHardDrive(v)), filePathNode(v.loader)],
      optionalData: new Uint8Array(0),
    };
    expect(hexOf(encodeLoadOption(option))).toBe(v.hex);
    expect(formatDevicePath(option.filePath)).toBe(v.text);
  });

  test.each(EFIBOOT_VECTORS.map((v) => [v.text, v] as const))("%s: decoding gives the fields back, and encoding the decoded option its bytes", (_t, v) => {
    const o = decodeLoadOption(hex(v.hex));
    expect([o.attributes, o.description, o.optionalData.length]).toEqual([LOAD_OPTION_ACTIVE, v.description, 0]);
    const hd = hardDriveOf(o.filePath)!;
    expect([hd.partitionNumber, hd.start, hd.size, guidText(hd.signature), hd.mbrType, hd.signatureType]).toEqual([v.partition, v.start, v.size, v.guid, 2, 2]);
    expect(loaderPathOf(o.filePath)).toBe(v.loader);
    expect(hexOf(encodeLoadOption(o))).toBe(v.hex);
  });

  test("the entry efibootmgr wrote into OVMF's NVRAM is the library's bytes", () => {
    expect(EFIBOOT_TESTOS.hex).toBe(TESTOS_HEX);
  });

  test("OVMF's options (with optional data and other nodes) encode back to their bytes", () => {
    for (const h of [PXE_HEX, HTTP_HEX, MISC_HEX, UIAPP_HEX, SHELL_HEX]) expect(hexOf(encodeLoadOption(decodeLoadOption(hex(h))))).toBe(h);
  });

  test("an MBR HD() prints as efivar prints it; other nodes by type", () => {
    const nodes = decodeDevicePath(hex(MBR_PATH.hex));
    expect(formatDevicePath(nodes)).toBe(MBR_PATH.text);
    expect(hexOf(encodeDevicePath(nodes))).toBe(MBR_PATH.hex);
    expect(formatDevicePath(decodeLoadOption(hex(MISC_HEX)).filePath)).toBe("Path(2,1)/Path(1,1)");
  });

  test("a File() path split over several nodes reads as one path; none: undefined", () => {
    const hd = decodeLoadOption(hex(TESTOS_HEX)).filePath[0]!;
    expect(loaderPathOf([hd, filePathNode("\\EFI"), filePathNode("BOOT\\"), filePathNode("BOOTX64.EFI")])).toBe("\\EFI\\BOOT\\BOOTX64.EFI");
    expect(loaderPathOf([hd])).toBeUndefined();
  });

  test("an HD() node of the wrong length is refused", () => {
    expect(() => hardDriveOf([{ type: 4, subType: 1, data: new Uint8Array(20) }])).toThrow(new LoadOptionError("device path: an HD() node of 24 bytes, expected 42"));
  });
});
