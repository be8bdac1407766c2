import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { carriedInManifest, firstBootOption, hdPartitionGuid, realosLayout, REALOS_LAYOUTS } from "./realos-layout.ts";

const REPO = join(import.meta.dir, "../..");
const SHA = "cc441c732cb7d0a5461416783816734f24c5b4d73c8b1d614e9e8da711a2668f";

describe("the real-OS lab's layouts and the facts it reads", () => {
  test("LAYOUT picks the allocation, the disks and the root device; unset is raid1; anything else is refused naming the choices", () => {
    expect(realosLayout(undefined)).toBe(REALOS_LAYOUTS.raid1);
    expect(realosLayout("")).toBe(REALOS_LAYOUTS.raid1);
    expect(realosLayout("single")).toMatchObject({ disks: ["vda"], root: "/dev/vda2", raid: false, espPartitions: ["vda1"] });
    expect(realosLayout("raid1")).toMatchObject({ disks: ["vda", "vdb"], root: "/dev/md2", raid: true, espPartitions: ["vda1", "vdb1"] });
    expect(() => realosLayout("raid5")).toThrow("REALOS_LAYOUT=raid5: expected raid1 or single");
  });

  test("each layout's allocation file has its disks, an ESP with PARTLABEL efi on each, vfat at /boot/efi, and the root device the marker names", () => {
    for (const l of Object.values(REALOS_LAYOUTS)) {
      const fl = (JSON.parse(readFileSync(join(REPO, l.allocation), "utf8")) as { filesystemLayout: Record<string, unknown> }).filesystemLayout as {
        disks: { device: string; partitions: { number: number; label: string; gptType: string }[] }[];
        raid?: unknown[];
        filesystems: { device: string; format: string; path?: string }[];
      };
      expect(fl.disks.map((d) => d.device)).toEqual(l.disks.map((d) => `/dev/${d}`));
      for (const d of fl.disks) expect(d.partitions[0]).toMatchObject({ number: 1, label: "efi", gptType: "GPT_TYPE_BOOT" });
      expect(fl.filesystems.find((f) => f.path === "/boot/efi")?.format).toBe("FORMAT_VFAT");
      expect(fl.filesystems.find((f) => f.path === "/")?.device).toBe(l.root);
      expect((fl.raid ?? []).length > 0).toBe(l.raid);
    }
  });

  test("the manifest's os-installer header line: what the initramfs carries, as the agent's choice line names it; none is undefined", () => {
    const manifest = `# build/initramfs/initramfs-6.1.0-57-amd64.cpio.zst\n# sha256 ${SHA}\n# os-installer: os-installer v0.3.1 (sha256 cc441c732cb7) elf-static, sha256 ${SHA}\nf 0755 init 10 base\n`;
    expect(carriedInManifest(manifest)).toEqual({
      describe: "os-installer v0.3.1 (sha256 cc441c732cb7)",
      name: "os-installer",
      version: "v0.3.1",
      kind: "elf-static",
      sha256: SHA,
    });
    expect(carriedInManifest(`# os-installer: test-installer os-installer-shape (sha256 cc441c732cb7) script, sha256 ${SHA}\n`)?.name).toBe("test-installer");
    expect(carriedInManifest("# os-installer: none\n")).toBeUndefined();
    expect(carriedInManifest("")).toBeUndefined();
  });

  test("OVMF's first boot option: the first loading line, the agent's entry or the removable-media fallback", () => {
    const agent = 'BdsDxe: loading Boot0006 "metal-debian" from HD(1,GPT,6E5F1A3B-0C1D-4E2F-8A9B-0123456789AB,0x800,0x80000)/\\EFI\\BOOT\\BOOTX64.EFI';
    const fallback = 'BdsDxe: loading Boot0003 "UEFI Misc Device" from PciRoot(0x0)/Pci(0x4,0x0)';
    expect(firstBootOption(`BdsDxe: failed to load Boot0001\n${agent}\r\n${fallback}\n`)).toEqual({
      line: agent,
      entry: "Boot0006",
      description: "metal-debian",
      path: "HD(1,GPT,6E5F1A3B-0C1D-4E2F-8A9B-0123456789AB,0x800,0x80000)/\\EFI\\BOOT\\BOOTX64.EFI",
    });
    expect(firstBootOption(fallback)?.description).toBe("UEFI Misc Device");
    expect(firstBootOption("no firmware lines")).toBeUndefined();
  });

  test("the HD() node's partition GUID in either case: OVMF's console and the agent's log name the same partition", () => {
    const guid = "6e5f1a3b-0c1d-4e2f-8a9b-0123456789ab";
    expect(hdPartitionGuid("HD(1,GPT,6E5F1A3B-0C1D-4E2F-8A9B-0123456789AB,0x800,0x80000)/\\EFI\\BOOT\\BOOTX64.EFI")).toBe(guid);
    expect(hdPartitionGuid(`HD(1,GPT,${guid},0x800,0x80000)/File(\\EFI\\BOOT\\BOOTX64.EFI)`)).toBe(guid);
    expect(hdPartitionGuid("PciRoot(0x0)/Pci(0x4,0x0)")).toBeUndefined();
  });
});
