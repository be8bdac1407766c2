import { describe, expect, test } from "bun:test";
import { MIB } from "../../../src/machine/disk/disk-facts.ts";
import { arraySizeMiB, lvCostMiB, usableDiskMiB, vgCapacityMiB } from "../../../src/machine/disk/layout-plan.ts";

describe("the sizes the layout planner checks a layout against", () => {
  test("a GPT disk holds its size in whole MiB less 1 MiB in front and 1 MiB for the backup table", () => {
    expect(usableDiskMiB(480 * 1024 * MIB)).toBe(491_518);
    expect(usableDiskMiB(100 * MIB + 123)).toBe(98);
    expect(usableDiskMiB(2 * MIB)).toBe(0);
  });

  test("RAID 1 offers its smallest member, other levels the smallest times the active devices, less 1 MiB of superblock", () => {
    expect(arraySizeMiB("1", [1000, 800], 2)).toBe(799);
    expect(arraySizeMiB("0", [1000, 800], 2)).toBe(1599);
    expect(arraySizeMiB("5", [1000, 1000, 900, 1000], 3)).toBe(2699);
    expect(arraySizeMiB("1", [0, 0], 2)).toBe(0);
  });

  test("an array whose member size is unknown, or that has no members, has no known size", () => {
    expect(arraySizeMiB("1", [1000, undefined], 2)).toBeUndefined();
    expect(arraySizeMiB("0", [], 0)).toBeUndefined();
  });

  test("a volume group holds whole 4 MiB extents after 1 MiB of metadata per physical volume", () => {
    expect(vgCapacityMiB([1000])).toBe(996);
    expect(vgCapacityMiB([1001, 1005])).toBe(1000 + 1004);
    expect(vgCapacityMiB([])).toBe(0);
    expect(vgCapacityMiB([1000, undefined])).toBeUndefined();
  });

  test("a logical volume takes whole extents, raid1 two copies plus a metadata extent per leg", () => {
    expect(lvCostMiB("linear", 10)).toBe(12);
    expect(lvCostMiB("striped", 8)).toBe(8);
    expect(lvCostMiB("raid1", 10)).toBe(32);
  });

  test("a volume that takes the rest of its group counts one extent, raid1 two plus metadata", () => {
    expect(lvCostMiB("linear", 0)).toBe(4);
    expect(lvCostMiB("striped", 0)).toBe(4);
    expect(lvCostMiB("raid1", 0)).toBe(16);
  });
});
