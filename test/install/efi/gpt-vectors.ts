/**
 * GUID Partition Tables written by sgdisk (gdisk 1.0.9, Debian bookworm) onto sparse
 * 2 GiB files (4194304 sectors of 512 bytes), the layout of a metal-stack disk: an ESP,
 * then the root:
 *   truncate -s 2G vda.img
 *   sgdisk -U 1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d \
 *     -n 1:2048:+512M -t 1:ef00 -c 1:efi -u 1:6e5f1a3b-2c4d-4e8f-9a0b-1c2d3e4f5a6b \
 *     -n 2:0:0 -t 2:8300 -c 2:root -u 2:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d vda.img
 * (vdb.img: disk 2e3d4c5b-6f70-4b8c-9dae-1f2a3b4c5d6e, ESP 0f1e2d3c-4b5a-4697-8877-665544332211,
 * root 2:fd00 aa8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d). sgdisk -p: partition 1 sectors
 * 2048..1050623 (512 MiB), partition 2 1050624..4194270.
 * Recorded: the primary header (LBA 1, its 92 bytes), the first 256 bytes of the entry
 * array (LBA 2..33; the other 126 entries are zero) and the backup header (the last LBA).
 */
export interface GptVector {
  readonly sectors: number;
  readonly primary: string;
  readonly entries: string;
  readonly backup: string;
}

export const GPT_VDA: GptVector = {
  sectors: 4194304,
  primary:
    "4546492050415254000001005c0000004a2f4e8e000000000100000000000000ffff3f00000000002200000000000000deff3f00000000004a3b2c1d6f5e7b4a8c9d0e1f2a3b4c5d020000000000000080000000800000006431cbbd",
  entries:
    "28732ac11ff8d211ba4b00a0c93ec93b3b1a5f6e4d2c8f4e9a0b1c2d3e4f5a6b0008000000000000ff071000000000000000000000000000650066006900000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000af3dc60f838472478e793d69d8477de46d7c8b9a4f5e3b4a8c2d1e0f9a8b7c6d0008100000000000deff3f0000000000000000000000000072006f006f00740000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  backup:
    "4546492050415254000001005c00000026b7262e00000000ffff3f000000000001000000000000002200000000000000deff3f00000000004a3b2c1d6f5e7b4a8c9d0e1f2a3b4c5ddfff3f000000000080000000800000006431cbbd",
};

export const GPT_VDB: GptVector = {
  sectors: 4194304,
  primary:
    "4546492050415254000001005c00000029351608000000000100000000000000ffff3f00000000002200000000000000deff3f00000000005b4c3d2e706f8c4b9dae1f2a3b4c5d6e020000000000000080000000800000007be39ba3",
  entries:
    "28732ac11ff8d211ba4b00a0c93ec93b3c2d1e0f5a4b974688776655443322110008000000000000ff0710000000000000000000000000006500660069000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f889da1fc053b4da006743f0f84911e6d7c8baa4f5e3b4a8c2d1e0f9a8b7c6d0008100000000000deff3f0000000000000000000000000072006f006f00740000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  backup:
    "4546492050415254000001005c00000045ad7ea800000000ffff3f000000000001000000000000002200000000000000deff3f00000000005b4c3d2e706f8c4b9dae1f2a3b4c5d6edfff3f000000000080000000800000007be39ba3",
};

import { crc32 } from "node:zlib";

const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

/** The header block (a 92-byte header padded to `lbs`). */
export const headerBlock = (h: string, lbs = 512): Uint8Array => {
  const b = new Uint8Array(lbs);
  b.set(bytes(h));
  return b;
};

/** The whole entry array (128 entries of 128 bytes). */
export const entryArray = (v: GptVector): Uint8Array => {
  const b = new Uint8Array(128 * 128);
  b.set(bytes(v.entries));
  return b;
};

/** The partitions of a table: number, first and last LBA, from its used entries. */
export function vectorPartitions(v: GptVector): { number: number; first: number; last: number }[] {
  const e = Buffer.from(v.entries, "hex");
  const out = [];
  for (let i = 0; i * 128 < e.length; i++)
    if (e.subarray(i * 128, i * 128 + 16).some((b) => b !== 0))
      out.push({ number: i + 1, first: Number(e.readBigUInt64LE(i * 128 + 32)), last: Number(e.readBigUInt64LE(i * 128 + 40)) });
  return out;
}

/** The table with entry 1 (the ESP) changed to another unique GUID and last LBA, its CRCs made right again (both headers). */
export function withEspEntry(v: GptVector, guidHex: string, lastLba: bigint): GptVector {
  const e = Buffer.from(v.entries, "hex");
  Buffer.from(guidHex, "hex").copy(e, 16);
  e.writeBigUInt64LE(lastLba, 40);
  const full = Buffer.alloc(128 * 128);
  e.copy(full);
  const header = (h: string) => {
    const b = Buffer.from(h, "hex");
    b.writeUInt32LE(crc32(full), 88);
    b.writeUInt32LE(0, 16);
    b.writeUInt32LE(crc32(b), 16);
    return b.toString("hex");
  };
  return { sectors: v.sectors, primary: header(v.primary), entries: e.toString("hex"), backup: header(v.backup) };
}
