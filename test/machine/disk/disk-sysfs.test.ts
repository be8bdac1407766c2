import { describe, expect, test } from "bun:test";
import { diskFromFiles, readDisks } from "../../../src/machine/disk/disk-sysfs.ts";
import { escapeText, partitionPath } from "../../../src/machine/disk/disk-facts.ts";

const SYS = new URL("../../fixtures/disk/sys", import.meta.url).pathname;

describe("disk inventory from sysfs", () => {
  test("lists the real disks sorted by name and leaves out loop, md, optical and empty devices", async () => {
    const disks = await readDisks(SYS);
    expect(disks.map((d) => d.name)).toEqual(["nvme0n1", "sda", "sdb", "vda", "vdc"]);
  });

  test("reads size, rotation, discard, NVMe, removable and read-only facts", async () => {
    const by = Object.fromEntries((await readDisks(SYS)).map((d) => [d.name, d]));
    const sda = by.sda!;
    expect(sda.sizeBytes).toBe(7814037168 * 512);
    expect(sda.rotational).toBe(true);
    expect(sda.discard).toBe(false);
    expect(sda.nvme).toBe(false);
    expect(sda.partitions.map((p) => [p.path, p.number, p.sizeBytes])).toEqual([
      ["/dev/sda1", 1, 1024000 * 512],
      ["/dev/sda2", 2, 2048000 * 512],
    ]);
    expect(sda.holders).toEqual(["md127"]);
    const nvme = by.nvme0n1!;
    expect(nvme.nvme).toBe(true);
    expect(nvme.nvmeController).toBe("nvme0");
    expect(nvme.logicalBlockSize).toBe(4096);
    expect(nvme.discard).toBe(true);
    expect(nvme.discardGranularity).toBe(4096);
    expect(nvme.writeZeroes).toBe(true);
    expect(nvme.rotational).toBe(false);
    expect(nvme.model).toBe("SAMSUNG MZQLB1T9HAJR-00007");
    expect(nvme.serial).toBe("S439NA0N100123");
    expect(nvme.partitions.map((p) => p.path)).toEqual(["/dev/nvme0n1p1"]);
    expect(by.vda!.serial).toBe("lab-vda");
    expect(by.vdc!.readOnly).toBe(true);
    expect(by.sdb!.removable).toBe(true);
    expect(by.sdb!.model).toBe("SanDisk Cruzer");
  });

  test("escapes control characters in model and serial strings", async () => {
    const sda = (await readDisks(SYS)).find((d) => d.name === "sda")!;
    expect(sda.model).toBe("ATA ST4000NM0035\\u0001-1V4");
    expect(escapeText(" caf\u00e9\n")).toBe("caf\\u00e9");
  });

  test("an entry without a rotational file counts as rotating (discard is then never assumed)", () => {
    const d = diskFromFiles("sdq", { size: "2048" })!;
    expect(d.rotational).toBe(true);
    expect(d.discard).toBe(false);
    expect(d.logicalBlockSize).toBe(512);
  });

  test("a missing sysfs root yields no disks", async () => {
    expect(await readDisks("/nonexistent/sys")).toEqual([]);
  });

  test("partition device names take a p after a trailing digit", () => {
    expect(partitionPath("/dev/sda", 1)).toBe("/dev/sda1");
    expect(partitionPath("/dev/nvme0n1", 2)).toBe("/dev/nvme0n1p2");
    expect(partitionPath("/dev/md0", 1)).toBe("/dev/md0p1");
  });
});
