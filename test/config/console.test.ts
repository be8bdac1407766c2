import { expect, test } from "bun:test";
import { consoleForManufacturer } from "../../src/config/console.ts";

test("the console by manufacturer, as pixie's boot.ipxe picks it: ttyS0 for Dell Inc., Giga Computing, QEMU, FUJITSU; ttyS1 otherwise", () => {
  // sys_vendor as sysfs shows it (with its newline) for the four, and others as they name themselves.
  expect(["Dell Inc.\n", "Giga Computing", "QEMU", "FUJITSU"].map(consoleForManufacturer)).toEqual(["ttyS0", "ttyS0", "ttyS0", "ttyS0"]);
  expect(["Supermicro", "Lenovo", "GIGABYTE", "Dell", "qemu", "FUJITSU CLIENT COMPUTING LIMITED", "", undefined].map(consoleForManufacturer)).toEqual(Array(8).fill("ttyS1"));
});
