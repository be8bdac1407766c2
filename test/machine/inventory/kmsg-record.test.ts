import { describe, expect, test } from "bun:test";
import { parseKmsgRecord } from "../../../src/machine/inventory/kmsg-record.ts";

describe("parseKmsgRecord", () => {
  test("a record as /dev/kmsg returns it: facility and level from prio, sequence, microseconds, flags, the message without its newline", () => {
    expect(parseKmsgRecord("6,88,108730,-;Memory: 260916K/1048056K available (14343K kernel code)\n")).toEqual({
      facility: 0,
      level: 6,
      seq: 88,
      usec: 108730,
      flags: "-",
      message: "Memory: 260916K/1048056K available (14343K kernel code)",
    });
    // A user-space record (facility 1, level 6 = prio 14), a continuation flag.
    expect(parseKmsgRecord("14,1200,5000000,c;hello\n")).toMatchObject({ facility: 1, level: 6, flags: "c", message: "hello" });
  });

  test("the dictionary lines after the message are not part of it; fields added before the ';' are skipped", () => {
    expect(parseKmsgRecord("6,109,1049001,-;ACPI: bus type PCI registered\n SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A08:00\n")?.message).toBe("ACPI: bus type PCI registered");
    expect(parseKmsgRecord("6,1,2,-,caller=T1;text\n")).toMatchObject({ seq: 1, flags: "-", message: "text" });
  });

  test("text that is not a record is undefined", () => {
    expect(parseKmsgRecord("<6>[    0.108730] Memory: 1K/2K")).toBeUndefined();
    expect(parseKmsgRecord("6,88;no usec")).toBeUndefined();
    expect(parseKmsgRecord("")).toBeUndefined();
    expect(parseKmsgRecord(`6,${"9".repeat(20)},0,-;x`)).toBeUndefined();
  });
});
