import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseBmcInfo, parseFru, parseLanPrint } from "../../../src/machine/bmc/reading.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../../fixtures/bmc", name), "utf8");

describe("parseLanPrint", () => {
  test("reads the address, MAC and source ipmi_sim prints (recorded)", () => {
    expect(parseLanPrint(fixture("ipmi_sim-lan-print.txt"))).toEqual({ ip: "192.0.2.10", mac: "52:54:00:ab:cd:ef", ipSource: "Static Address", notes: [] });
  });

  test("an unset address and MAC are left out with notes", () => {
    const r = parseLanPrint("IP Address Source       : Unspecified\nIP Address              : 0.0.0.0\nMAC Address             : 00:00:00:00:00:00\n");
    expect(r.ip).toBeUndefined();
    expect(r.mac).toBeUndefined();
    expect(r.notes).toEqual(["lan print: the BMC has no IP address (0.0.0.0)", "lan print: the BMC reports MAC 00:00:00:00:00:00"]);
  });

  test("garbage gives no address and says which lines are missing", () => {
    const r = parseLanPrint("\u0000\u0001 Segmentation fault\nwhatever\n");
    expect(r).toEqual({ notes: ["lan print: no 'IP Address' line", "lan print: no 'MAC Address' line"] });
  });

  test("values that are not an address or a MAC are named", () => {
    const r = parseLanPrint("IP Address : 300.1.2.3\nMAC Address : 52:54:00:ab:cd\n");
    expect(r.notes).toEqual(['lan print: IP Address "300.1.2.3" is not an IPv4 address', 'lan print: MAC Address "52:54:00:ab:cd" is not a MAC address']);
  });

  test("an upper-case MAC is reported in lower case", () => {
    expect(parseLanPrint("IP Address : 10.1.2.3\nMAC Address : AC:1F:6B:00:11:22\n").mac).toBe("ac:1f:6b:00:11:22");
  });
});

describe("parseFru", () => {
  test("maps ipmitool's names to MachineFRU's fields (recorded from ipmi_sim)", () => {
    expect(parseFru(fixture("ipmi_sim-fru.txt"))).toEqual({
      fru: {
        chassisPartNumber: "CHS-PN-0001",
        chassisPartSerial: "CHS-SN-778899",
        boardMfg: "Acme Servers Inc",
        boardMfgSerial: "BRD-SN-0042",
        boardPartNumber: "BRD-PN-1234",
        productManufacturer: "Acme Servers Inc",
        productPartNumber: "PRD-PN-5678",
        productSerial: "PRD-SN-XYZ987",
      },
      notes: [],
    });
  });

  test("the builtin FRU device is used when there are more (a PSU's FRU does not describe the server)", () => {
    const text = [
      "FRU Device Description : PSU1 (ID 2)",
      " Product Manufacturer  : PowerCo",
      " Product Serial        : PSU-1",
      "",
      "FRU Device Description : Builtin FRU Device (ID 0)",
      " Board Mfg             : GIGABYTE",
      " Board Serial          : GG3P8800012",
      " Product Manufacturer  : GIGABYTE",
      " Product Serial        : 01234567890123456789AB",
      "",
    ].join("\n");
    expect(parseFru(text).fru).toEqual({ boardMfg: "GIGABYTE", boardMfgSerial: "GG3P8800012", productManufacturer: "GIGABYTE", productSerial: "01234567890123456789AB" });
  });

  test("no FRU device, control characters and over-long values are notes, not fields", () => {
    expect(parseFru("No FRU found\n")).toEqual({ fru: {}, notes: ["fru: no FRU device printed"] });
    const r = parseFru(`FRU Device Description : Builtin FRU Device (ID 0)\n Board Mfg : ${"x".repeat(300)}\n Product Serial : a\u0007b\n Chassis Serial : ok\n`);
    expect(r.fru).toEqual({ chassisPartSerial: "ok" });
    expect(r.notes).toHaveLength(2);
    expect(r.notes[0]).toStartWith('fru: Board Mfg "xxxx');
    expect(r.notes[0]).toEndWith("is not a description (at most 256 printable characters)");
  });
});

describe("parseBmcInfo", () => {
  test("reads the firmware revision and manufacturer (recorded from ipmi_sim)", () => {
    expect(parseBmcInfo(fixture("ipmi_sim-bmc-info.txt"))).toEqual({ firmwareRevision: "1.02", manufacturer: "Super Micro Computer Inc.", notes: [] });
  });

  test("a missing revision is a note", () => {
    expect(parseBmcInfo("Device ID : 32\n")).toEqual({ notes: ["bmc info: no 'Firmware Revision' line"] });
  });
});
