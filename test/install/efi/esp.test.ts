import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatDevicePath, hardDriveNode } from "../../../src/install/efi/device-path.ts";
import { findLoader, loaderComponents } from "../../../src/install/efi/esp-loader.ts";
import { findEsp } from "../../../src/install/efi/esp.ts";
import { AgentError } from "../../../src/platform/errors.ts";
import { fakeMachine, VDA, VDB, type FakeMachine, type FakeMachineOptions } from "./fake-machine.ts";
import { EFIBOOT_DEBIAN_VDA, EFIBOOT_DEBIAN_VDB } from "./efiboot-vectors.ts";

const machines: FakeMachine[] = [];
afterEach(() => {
  for (const m of machines.splice(0)) rmSync(m.base, { recursive: true, force: true });
});
const machine = (o: FakeMachineOptions) => {
  const m = fakeMachine(o);
  machines.push(m);
  return m;
};
const find = (m: FakeMachine) => findEsp({ root: m.root, sysRoot: m.sys, devRoot: m.dev, readMountInfo: async () => m.mountinfo });
const hdText = (e: Awaited<ReturnType<typeof findEsp>>) => e.partitions.map((p) => `${p.name} on ${p.disk}: ${formatDevicePath([hardDriveNode(p.hd)])}`);
const hdOf = (v: { text: string }) => v.text.slice(0, v.text.indexOf("/File("));
const refusal = async (m: FakeMachine): Promise<AgentError> => {
  const e = await find(m).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(AgentError);
  expect((e as AgentError).exitCode).toBe(57);
  return e as AgentError;
};

describe("findEsp: the ESP mounted at <root>/boot/efi and the HD() of each of its partitions", () => {
  test("a GPT partition: number, start and size from sysfs, the unique GUID from the disk's GPT entry (what libefiboot puts into HD())", async () => {
    const m = machine({ esp: { partition: "vda1" } });
    const e = await find(m);
    expect([e.dir, e.device]).toEqual([m.esp, "vda1"]);
    expect(hdText(e)).toEqual([`vda1 on vda: ${hdOf(EFIBOOT_DEBIAN_VDA)}`]);
  });

  test("an md RAID 1 (metadata 1.0) over one partition per disk: one HD() per member", async () => {
    const m = machine({ disks: [VDA, VDB], esp: { md: "md127", members: ["vdb1", "vda1"] } });
    const e = await find(m);
    expect(e.device).toBe("md127");
    expect(hdText(e)).toEqual([`vda1 on vda: ${hdOf(EFIBOOT_DEBIAN_VDA)}`, `vdb1 on vdb: ${hdOf(EFIBOOT_DEBIAN_VDB)}`]);
  });

  test("4096-byte logical blocks: start and size count those blocks", async () => {
    const m = machine({ disks: [{ ...VDA, logicalBlockSize: 4096 }], esp: { partition: "vda1" } });
    expect(hdText(await find(m))).toEqual([`vda1 on vda: ${hdOf(EFIBOOT_DEBIAN_VDA)}`]);
  });

  test("a damaged primary GPT: the backup at the disk's last LBA", async () => {
    const m = machine({ esp: { partition: "vda1" }, disks: [{ ...VDA, damagePrimary: true }] });
    expect(hdText(await find(m))).toEqual([`vda1 on vda: ${hdOf(EFIBOOT_DEBIAN_VDA)}`]);
  });

  test("nothing mounted at <root>/boot/efi: refused, naming the path", async () => {
    const m = machine({});
    expect((await refusal(m)).message).toBe(`UEFI boot order: no ESP: nothing is mounted at ${m.esp} (the layout's EFI system partition is mounted there)`);
  });

  test("an ESP that is not FAT, a RAID 0, a partition whose table on the disk is not the kernel's: refused, each saying why", async () => {
    expect((await refusal(machine({ esp: { partition: "vda1" }, espFstype: "ext4" }))).message).toContain("is ext4 (/dev/vda1), firmware reads only FAT");
    expect((await refusal(machine({ disks: [VDA, VDB], esp: { md: "md127", members: ["vda1", "vdb1"], level: "raid0" } }))).message).toContain(
      "the ESP md127 is md raid0 with metadata 1.0: firmware reads a mirror member as FAT only for RAID 1 with the superblock at the end (metadata 1.0)",
    );
    expect((await refusal(machine({ disks: [VDA, VDB], esp: { md: "md127", members: ["vda1", "vdb1"], metadata: "1.2" } }))).message).toContain("md raid1 with metadata 1.2");
    expect((await refusal(machine({ disks: [{ ...VDA, sysStart: 4096 }], esp: { partition: "vda1" } }))).message).toContain(
      "GPT of vda: entry 1 spans LBA 2048..1050623 of 512 bytes, the kernel's vda1 starts at sector 4096 with 1048576 sectors of 512 bytes",
    );
  });

  test("a partition of an md array (md127p1): refused, firmware does not read inside arrays", async () => {
    const m = machine({ esp: { partition: "vda1" } });
    mkdirSync(join(m.sys, "devices/pci0000:00/0000:00:04.0/virtio1/block/vda/md"));
    writeFileSync(join(m.sys, "devices/pci0000:00/0000:00:04.0/virtio1/block/vda/md/level"), "raid1\n");
    expect((await refusal(m)).message).toBe("UEFI boot order: the ESP vda1 is a partition of the md array vda: firmware cannot read inside an array");
  });

  test("a disk without a GPT: refused, naming both tables", async () => {
    const m = machine({ esp: { partition: "vda1" } });
    rmSync(`${m.dev}/vda`);
    writeFileSync(`${m.dev}/vda`, new Uint8Array(4096));
    const msg = (await refusal(m)).message;
    expect(msg).toContain("the ESP partition vda1 has no readable GPT entry: primary GPT of");
    expect(msg).toContain('no "EFI PART" signature; backup GPT of');
  });
});

describe("the loader on the ESP (FAT: names without case)", () => {
  test("found whatever the case of each component; a directory, an empty file or a missing one is not a loader", async () => {
    const m = machine({ esp: { partition: "vda1" }, loaders: ["EFI/BOOT/BOOTX64.EFI", "EFI/debian/grubx64.efi"] });
    expect(await findLoader(m.esp, "\\EFI\\BOOT\\BOOTX64.EFI")).toBe(`${m.esp}/EFI/BOOT/BOOTX64.EFI`);
    expect(await findLoader(m.esp, "\\efi\\boot\\bootx64.efi")).toBe(`${m.esp}/EFI/BOOT/BOOTX64.EFI`);
    expect(await findLoader(m.esp, "\\EFI\\DEBIAN\\GRUBX64.EFI")).toBe(`${m.esp}/EFI/debian/grubx64.efi`);
    expect(await findLoader(m.esp, "\\EFI\\BOOT")).toBeUndefined();
    expect(await findLoader(m.esp, "\\EFI\\metal-debian\\grubx64.efi")).toBeUndefined();
    writeFileSync(`${m.esp}/EFI/BOOT/EMPTY.EFI`, "");
    expect(await findLoader(m.esp, "\\EFI\\BOOT\\EMPTY.EFI")).toBeUndefined();
  });

  test("only a path as efibootmgr stores it counts: a leading \\, no empty, . or .. component, no /", () => {
    expect(loaderComponents("\\EFI\\BOOT\\BOOTX64.EFI")).toEqual(["EFI", "BOOT", "BOOTX64.EFI"]);
    for (const p of ["EFI\\BOOT\\BOOTX64.EFI", "\\\\EFI\\\\metal-debian\\\\grubx64.efi", "\\EFI\\..\\BOOTX64.EFI", "/EFI/BOOT/BOOTX64.EFI", "\\"])
      expect(loaderComponents(p)).toBeUndefined();
  });
});
