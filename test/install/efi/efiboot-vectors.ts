/**
 * Boot#### values (EFI_LOAD_OPTION, without efivarfs' attribute bytes) and their
 * device path text, made by efibootmgr's own libraries: Debian bookworm's libefivar1 and
 * libefiboot1 37-6 (headers from libefivar-dev/libefiboot-dev 37-6). A throwaway C
 * program, compiled in /tmp with `gcc gen.c $(pkg-config --cflags --libs efivar efiboot)`,
 * did for each vector what efibootmgr's `--create` does through
 * efi_generate_file_device_path_from_esp with EFIBOOT_ABBREV_HD (efivar src/creator.c):
 *   efi_str_to_guid(guid, &g);
 *   efidp_make_hd(dp, .., partition, start, size, (uint8_t *)&g, EFIDP_HD_FORMAT_GPT, EFIDP_HD_SIGNATURE_GUID);
 *   efidp_make_file(dp + o, .., loader);  efidp_make_end_entire(dp + o, ..);
 *   efi_loadopt_create(buf, .., 0x1 (LOAD_OPTION_ACTIVE, as efibootmgr.c defines it), dp, o, description, NULL, 0);
 * and printed efidp_format_device_path(dp) and the bytes in hex. MBR_PATH is a device
 * path alone, efidp_make_hd(.., 1, 0x800, 0x100000, {78 56 34 12 0..}, EFIDP_HD_FORMAT_PCAT,
 * EFIDP_HD_SIGNATURE_MBR) + the same File and End.
 * EFIBOOT_TESTOS equals TESTOS_HEX (vectors.ts), the entry efibootmgr wrote into OVMF's NVRAM.
 */
import { MBR_TYPE_EFI_PARTITION_TABLE_HEADER, SIGNATURE_TYPE_GUID, type HardDrive } from "../../../src/install/efi/device-path.ts";
import { guidBytes } from "../../../src/install/efi/efi-guid.ts";

export interface EfibootVector {
  readonly partition: number;
  readonly start: bigint;
  readonly size: bigint;
  readonly guid: string;
  readonly loader: string;
  readonly description: string;
  /** efidp_format_device_path's text. */
  readonly text: string;
  readonly hex: string;
}

export const EFIBOOT_TESTOS: EfibootVector = {
  partition: 1,
  start: 0x800n,
  size: 0x80000n,
  guid: "bccfc23a-d699-4d91-bed2-0381f5f5b33d",
  loader: "\\EFI\\testos\\grubx64.efi",
  description: "testos",
  text: "HD(1,GPT,bccfc23a-d699-4d91-bed2-0381f5f5b33d,0x800,0x80000)/File(\\EFI\\testos\\grubx64.efi)",
  hex: "01000000620074006500730074006f007300000004012a0001000000000800000000000000000800000000003ac2cfbc99d6914dbed20381f5f5b33d0202040434005c004500460049005c0074006500730074006f0073005c0067007200750062007800360034002e0065006600690000007fff0400",
};

/** The entry for vda1 of the sgdisk disk in gpt-vectors.ts (GPT_VDA), the removable loader. */
export const EFIBOOT_DEBIAN_VDA: EfibootVector = {
  partition: 1,
  start: 0x800n,
  size: 0x100000n,
  guid: "6e5f1a3b-2c4d-4e8f-9a0b-1c2d3e4f5a6b",
  loader: "\\EFI\\BOOT\\BOOTX64.EFI",
  description: "metal-debian",
  text: "HD(1,GPT,6e5f1a3b-2c4d-4e8f-9a0b-1c2d3e4f5a6b,0x800,0x100000)/File(\\EFI\\BOOT\\BOOTX64.EFI)",
  hex: "010000005e006d006500740061006c002d00640065006200690061006e00000004012a0001000000000800000000000000001000000000003b1a5f6e4d2c8f4e9a0b1c2d3e4f5a6b0202040430005c004500460049005c0042004f004f0054005c0042004f004f0054005800360034002e0045004600490000007fff0400",
};

/** The same for vdb1 of GPT_VDB (the mirror's second member). */
export const EFIBOOT_DEBIAN_VDB: EfibootVector = {
  partition: 1,
  start: 0x800n,
  size: 0x100000n,
  guid: "0f1e2d3c-4b5a-4697-8877-665544332211",
  loader: "\\EFI\\BOOT\\BOOTX64.EFI",
  description: "metal-debian",
  text: "HD(1,GPT,0f1e2d3c-4b5a-4697-8877-665544332211,0x800,0x100000)/File(\\EFI\\BOOT\\BOOTX64.EFI)",
  hex: "010000005e006d006500740061006c002d00640065006200690061006e00000004012a0001000000000800000000000000001000000000003c2d1e0f5a4b974688776655443322110202040430005c004500460049005c0042004f004f0054005c0042004f004f0054005800360034002e0045004600490000007fff0400",
};

/** Partition 2 of a disk with 4096-byte logical blocks (start and size in those blocks). */
export const EFIBOOT_UBUNTU_4KN: EfibootVector = {
  partition: 2,
  start: 0x100n,
  size: 0x20000n,
  guid: "a1b2c3d4-e5f6-4789-8abc-def012345678",
  loader: "\\EFI\\BOOT\\BOOTX64.EFI",
  description: "metal-ubuntu",
  text: "HD(2,GPT,a1b2c3d4-e5f6-4789-8abc-def012345678,0x100,0x20000)/File(\\EFI\\BOOT\\BOOTX64.EFI)",
  hex: "010000005e006d006500740061006c002d007500620075006e0074007500000004012a000200000000010000000000000000020000000000d4c3b2a1f6e589478abcdef0123456780202040430005c004500460049005c0042004f004f0054005c0042004f004f0054005800360034002e0045004600490000007fff0400",
};

/** Partition 15, start and size above 2^32 (UINT64 fields). */
export const EFIBOOT_HIGH: EfibootVector = {
  partition: 15,
  start: 0x100000800n,
  size: 0x200000000n,
  guid: "ffeeddcc-bbaa-4998-8776-554433221100",
  loader: "\\EFI\\metal-debian\\grubx64.efi",
  description: "metal-debian",
  text: "HD(15,GPT,ffeeddcc-bbaa-4998-8776-554433221100,0x100000800,0x200000000)/File(\\EFI\\metal-debian\\grubx64.efi)",
  hex: "010000006e006d006500740061006c002d00640065006200690061006e00000004012a000f00000000080000010000000000000002000000ccddeeffaabb984987765544332211000202040440005c004500460049005c006d006500740061006c002d00640065006200690061006e005c0067007200750062007800360034002e0065006600690000007fff0400",
};

export const EFIBOOT_VECTORS = [EFIBOOT_TESTOS, EFIBOOT_DEBIAN_VDA, EFIBOOT_DEBIAN_VDB, EFIBOOT_UBUNTU_4KN, EFIBOOT_HIGH];

/** A device path alone (no load option) with an MBR HD() node. */
export const MBR_PATH = {
  text: "HD(1,MBR,0x12345678,0x800,0x100000)/File(\\EFI\\BOOT\\BOOTX64.EFI)",
  hex: "04012a000100000000080000000000000000100000000000785634120000000000000000000000000101040430005c004500460049005c0042004f004f0054005c0042004f004f0054005800360034002e0045004600490000007fff0400",
};

/** The HD() fields a vector was made from (GPT: MBR type 2, signature type 2). */
export const vectorHardDrive = (v: Pick<EfibootVector, "partition" | "start" | "size" | "guid">): HardDrive => ({
  partitionNumber: v.partition,
  start: v.start,
  size: v.size,
  signature: guidBytes(v.guid),
  mbrType: MBR_TYPE_EFI_PARTITION_TABLE_HEADER,
  signatureType: SIGNATURE_TYPE_GUID,
});
