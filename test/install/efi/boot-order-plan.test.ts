import { describe, expect, test } from "bun:test";
import { BootOrderError, loaderCandidates, planBootOrder, type BootOrderFacts } from "../../../src/install/efi/boot-order-plan.ts";
import { filePathNode, hardDriveNode } from "../../../src/install/efi/device-path.ts";
import { loaderKey } from "../../../src/install/efi/esp-loader.ts";
import type { EspPartition } from "../../../src/install/efi/esp.ts";
import { bootName, decodeLoadOption, LOAD_OPTION_ACTIVE, type LoadOption } from "../../../src/install/efi/load-option.ts";
import { EFIBOOT_DEBIAN_VDA, EFIBOOT_DEBIAN_VDB, vectorHardDrive } from "./efiboot-vectors.ts";
import { HTTP_HEX, MISC_HEX, PXE_HEX, SHELL_HEX, TESTOS_HEX, UIAPP_HEX, hex } from "./vectors.ts";

const PXE = decodeLoadOption(hex(PXE_HEX));
const HTTP = decodeLoadOption(hex(HTTP_HEX));
const MISC = decodeLoadOption(hex(MISC_HEX));
const UIAPP = decodeLoadOption(hex(UIAPP_HEX));
const SHELL = decodeLoadOption(hex(SHELL_HEX));
const TESTOS = decodeLoadOption(hex(TESTOS_HEX));

const VDA1: EspPartition = { name: "vda1", disk: "vda", hd: vectorHardDrive(EFIBOOT_DEBIAN_VDA) };
const VDB1: EspPartition = { name: "vdb1", disk: "vdb", hd: vectorHardDrive(EFIBOOT_DEBIAN_VDB) };
/** The test OS's ESP: the partition its efibootmgr entry names. */
const TESTOS_ESP: EspPartition = { name: "vda1", disk: "vda", hd: vectorHardDrive({ partition: 1, start: 0x800n, size: 0x80000n, guid: "bccfc23a-d699-4d91-bed2-0381f5f5b33d" }) };
const REMOVABLE = "\\EFI\\BOOT\\BOOTX64.EFI";
const GRUB_NAMED = "\\EFI\\metal-debian\\grubx64.efi";

/** An entry as efibootmgr --create makes it. */
const entry = (description: string, p: EspPartition, loader: string, attributes = LOAD_OPTION_ACTIVE): LoadOption => ({
  attributes,
  description,
  filePath: [hardDriveNode(p.hd), filePathNode(loader)],
  optionalData: new Uint8Array(0),
});

const facts = (f: Partial<BootOrderFacts> & Pick<BootOrderFacts, "old" | "entries">): BootOrderFacts => ({
  bootloaderId: "metal-debian",
  espPartitions: [VDA1],
  loadersOnEsp: new Set([loaderKey(REMOVABLE)]),
  removableLoader: REMOVABLE,
  ...f,
});
const hexOf = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("planBootOrder: the entries that boot the installed OS first, then network, then the rest", () => {
  test("the installer's entry (on this ESP, its loader there) first, then network, then the rest in their old order; nothing written", () => {
    const entries = new Map([
      [0, MISC],
      [1, PXE],
      [2, SHELL],
      [3, TESTOS],
      [4, HTTP],
    ]);
    const p = planBootOrder(
      facts({ old: [0, 1, 2, 4, 3], entries, bootloaderId: "testos", espPartitions: [TESTOS_ESP], loadersOnEsp: new Set([loaderKey("\\EFI\\testos\\grubx64.efi")]) }),
    );
    expect(p.order).toEqual([3, 1, 4, 0, 2]);
    expect([p.os, p.network, p.writes, p.rejected]).toEqual([[3], [1, 4], [], []]);
    expect(p.changed).toBe(true);
  });

  test("already right: unchanged; an OS entry missing from BootOrder still goes first; duplicates dropped", () => {
    const entries = new Map([
      [1, PXE],
      [3, TESTOS],
    ]);
    const f = { entries, bootloaderId: "testos", espPartitions: [TESTOS_ESP], loadersOnEsp: new Set([loaderKey("\\EFI\\testos\\grubx64.efi")]) };
    expect(planBootOrder(facts({ ...f, old: [3, 1] })).changed).toBe(false);
    expect(planBootOrder(facts({ ...f, old: [1, 1] })).order).toEqual([3, 1]);
  });

  test("no entry named after the bootloader_id (os-installer's grub-install --removable): one written as efibootmgr writes it, at the lowest free number, first", () => {
    const entries = new Map([
      [0, UIAPP],
      [2, PXE],
      [3, SHELL],
    ]);
    const p = planBootOrder(facts({ old: [0, 2, 3], entries }));
    expect(p.writes.map((w) => [bootName(w.number), w.partition, w.reused])).toEqual([["Boot0001", "vda1", false]]);
    expect(hexOf(p.writes[0]!.data)).toBe(EFIBOOT_DEBIAN_VDA.hex);
    expect(p.order).toEqual([1, 2, 0, 3]);
    expect(p.rejected).toEqual([]);
  });

  test("the named entry names a loader missing on the ESP (os-installer on RAID: \\EFI\\metal-debian\\grubx64.efi): a new entry for the removable loader first, the dead one deleted", () => {
    const entries = new Map([
      [0, UIAPP],
      [1, PXE],
      [2, entry("metal-debian", VDA1, GRUB_NAMED)],
    ]);
    const p = planBootOrder(facts({ old: [2, 0, 1], entries }));
    expect(p.rejected).toEqual([{ number: 2, why: "\\EFI\\metal-debian\\grubx64.efi is not on the ESP" }]);
    expect(p.writes.map((w) => bootName(w.number))).toEqual(["Boot0003"]);
    expect(hexOf(p.writes[0]!.data)).toBe(EFIBOOT_DEBIAN_VDA.hex);
    expect(p.deletes).toEqual([2]);
    expect(p.order).toEqual([3, 1, 0]);
  });

  test("the named entry is on another disk: rejected saying whose HD() it has; its loader, present on this ESP, is the one the new entry names", () => {
    const entries = new Map([
      [0, PXE],
      [5, entry("metal-debian", VDB1, GRUB_NAMED)],
    ]);
    const p = planBootOrder(facts({ old: [5, 0], entries, loadersOnEsp: new Set([loaderKey(REMOVABLE), loaderKey(GRUB_NAMED)]) }));
    expect(p.rejected).toEqual([
      {
        number: 5,
        why: "HD(1,GPT,0f1e2d3c-4b5a-4697-8877-665544332211,0x800,0x100000) is not an ESP partition of this install (vda1: HD(1,GPT,6e5f1a3b-2c4d-4e8f-9a0b-1c2d3e4f5a6b,0x800,0x100000))",
      },
    ]);
    expect(p.writes[0]!.option).toEqual(entry("metal-debian", VDA1, GRUB_NAMED));
    // An earlier install's entry (another partition GUID): deleted, as grub-install deletes its label's.
    expect(p.deletes).toEqual([5]);
    expect(p.order).toEqual([1, 0]);
  });

  test("RAID: an entry per ESP partition (one per disk), the partitions in name order; a partition that has a good entry keeps it", () => {
    const entries = new Map([
      [0, UIAPP],
      [1, PXE],
      [2, entry("metal-debian", VDA1, GRUB_NAMED)],
      [3, entry("metal-debian", VDB1, GRUB_NAMED)],
    ]);
    const p = planBootOrder(facts({ old: [2, 3, 0, 1], entries, espPartitions: [VDA1, VDB1] }));
    expect(p.writes.map((w) => [bootName(w.number), w.partition])).toEqual([
      ["Boot0004", "vda1"],
      ["Boot0005", "vdb1"],
    ]);
    expect(p.writes.map((w) => hexOf(w.data))).toEqual([EFIBOOT_DEBIAN_VDA.hex, EFIBOOT_DEBIAN_VDB.hex]);
    expect(p.deletes).toEqual([2, 3]);
    expect(p.order).toEqual([4, 5, 1, 0]);

    const half = new Map([...entries, [7, entry("metal-debian", VDB1, REMOVABLE)]]);
    const q = planBootOrder(facts({ old: [2, 3, 0, 1, 7], entries: half, espPartitions: [VDA1, VDB1] }));
    expect(q.writes.map((w) => [bootName(w.number), w.partition])).toEqual([["Boot0004", "vda1"]]);
    expect(q.deletes).toEqual([2, 3]);
    expect(q.order).toEqual([7, 4, 1, 0]);
  });

  test("reuse: an entry with the same description and device path is not added again; an inactive one is rewritten active at its number", () => {
    const ours = entry("metal-debian", VDA1, REMOVABLE);
    const again = planBootOrder(
      facts({
        old: [1, 4],
        entries: new Map([
          [1, PXE],
          [4, ours],
        ]),
      }),
    );
    expect([again.writes, again.order, again.changed]).toEqual([[], [4, 1], true]);

    const inactive = planBootOrder(
      facts({
        old: [1, 4],
        entries: new Map([
          [1, PXE],
          [4, entry("metal-debian", VDA1, REMOVABLE, 0)],
        ]),
      }),
    );
    expect(inactive.rejected).toEqual([{ number: 4, why: "inactive (LOAD_OPTION_ACTIVE clear)" }]);
    expect(inactive.writes.map((w) => [bootName(w.number), w.reused, hexOf(w.data)])).toEqual([["Boot0004", true, EFIBOOT_DEBIAN_VDA.hex]]);
    // Rewritten at its number, not deleted.
    expect(inactive.deletes).toEqual([]);
    expect(inactive.order).toEqual([4, 1]);
  });

  test("another entry on the ESP with another description, an entry without HD(): not the installed OS's", () => {
    const fileOnly: LoadOption = { attributes: 1, description: "metal-debian", filePath: [filePathNode(REMOVABLE)], optionalData: new Uint8Array(0) };
    const p = planBootOrder(
      facts({
        old: [0, 1, 2],
        entries: new Map([
          [0, entry("UEFI OS", VDA1, REMOVABLE)],
          [1, PXE],
          [2, fileOnly],
        ]),
      }),
    );
    expect(p.rejected).toEqual([{ number: 2, why: "no HD() node (File(\\EFI\\BOOT\\BOOTX64.EFI))" }]);
    expect(p.writes.map((w) => w.number)).toEqual([3]);
    expect([p.deletes, p.order]).toEqual([[2], [3, 1, 0]]);
  });

  test("no loader on the ESP, or no bootloader_id: a typed error naming what is missing", () => {
    const entries = new Map([
      [0, UIAPP],
      [1, entry("metal-debian", VDA1, GRUB_NAMED)],
    ]);
    expect(() => planBootOrder(facts({ old: [0, 1], entries, loadersOnEsp: new Set() }))).toThrow(
      new BootOrderError(
        "no loader file on the ESP: looked for \\EFI\\metal-debian\\grubx64.efi, \\EFI\\BOOT\\BOOTX64.EFI (what the installer's entries name, and the removable path grub-install --removable writes)",
      ),
    );
    expect(() => planBootOrder(facts({ old: [0], entries: new Map([[0, MISC]]), bootloaderId: "" }))).toThrow(
      'the installer\'s boot-info.yaml names no bootloader_id, so no boot entry can be put first (entries found: Boot0000 "UEFI Misc Device")',
    );
  });

  test("loaderCandidates: the paths the named entries name (only paths firmware reads alike), then the removable one", () => {
    const odd: LoadOption = { ...entry("metal-debian", VDA1, "\\\\EFI\\\\metal-debian\\\\grubx64.efi") };
    const entries = new Map([
      [3, entry("metal-debian", VDB1, GRUB_NAMED)],
      [1, odd],
      [0, entry("other", VDA1, "\\EFI\\other\\grubx64.efi")],
    ]);
    expect(loaderCandidates(entries, "metal-debian", REMOVABLE)).toEqual([GRUB_NAMED, REMOVABLE]);
  });
});
