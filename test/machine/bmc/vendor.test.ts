import { describe, expect, test } from "bun:test";
import { bmcVendor } from "../../../src/machine/bmc/vendor.ts";

describe("bmcVendor", () => {
  test.each([
    ["Supermicro", "Supermicro", 10, "root"],
    ["  SUPERMICRO  ", "Supermicro", 10, "root"],
    ["Novarion-Systems", "Novarion-Systems", 10, "root"],
    ["Lenovo", "Lenovo", 3, "root"],
    ["Dell Inc.", "Dell", 3, "root"],
    ["Giga Computing", "Giga Computing", 3, "superuser"],
  ])("board vendor %p is %p with the metal user at id %p and superuser %p", (board, name, metalId, superName) => {
    const v = bmcVendor(board);
    expect(v?.name).toBe(name);
    expect(v?.metal).toEqual({ name: "metal", id: metalId, channel: 1 });
    expect(v?.superUser).toEqual({ name: superName, id: 4, channel: 1 });
  });

  test.each(["", "QEMU", "GIGABYTE", "To be filled by O.E.M."])("board vendor %p is unknown (no user is written)", (board) => {
    expect(bmcVendor(board)).toBeUndefined();
  });
});
