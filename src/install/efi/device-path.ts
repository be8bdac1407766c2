/**
 * The two device path nodes of a boot entry on a disk (UEFI 2.10 §10.3.6), both ways,
 * and their text as efivar prints it. Pure.
 *
 * - Hard Drive, Type 4 (Media) SubType 1, 42 bytes: UINT32 PartitionNumber, UINT64
 *   PartitionStart and PartitionSize (in the disk's logical blocks), 16 bytes Signature
 *   (GPT: the unique partition GUID), UINT8 MBRType (2 = GPT), UINT8 SignatureType
 *   (2 = GUID), little-endian.
 * - File Path, Type 4 SubType 4: the path as NUL-terminated UTF-16LE, `\` separated;
 *   a firmware may split one path over several File Path nodes, read as one.
 *
 * efibootmgr's library (efivar's efidp_make_hd, efidp_make_file, efidp_make_end_entire)
 * writes exactly these; test/install/efi/vectors.ts holds its bytes.
 */
import { guidText } from "./efi-guid.ts";
import { LoadOptionError, type DevicePathNode } from "./load-option.ts";

export const MEDIA_DEVICE_PATH = 0x04;
export const MEDIA_HARDDRIVE_DP = 0x01;
export const MEDIA_FILEPATH_DP = 0x04;
/** HD()'s MBRType for a GPT disk and its SignatureType for a GUID signature (§10.3.6.1). */
export const MBR_TYPE_EFI_PARTITION_TABLE_HEADER = 0x02;
export const SIGNATURE_TYPE_GUID = 0x02;
const HD_DATA_BYTES = 38;

export interface HardDrive {
  readonly partitionNumber: number;
  /** First logical block of the partition. */
  readonly start: bigint;
  /** Logical blocks in the partition. */
  readonly size: bigint;
  /** 16 bytes; GPT: the unique partition GUID as stored in the entry. */
  readonly signature: Uint8Array;
  readonly mbrType: number;
  readonly signatureType: number;
}

const isNode = (n: DevicePathNode, subType: number) => n.type === MEDIA_DEVICE_PATH && n.subType === subType;

export function hardDriveNode(hd: HardDrive): DevicePathNode {
  if (hd.signature.length !== 16) throw new RangeError(`HD(): the signature has 16 bytes, got ${hd.signature.length}`);
  const data = new Uint8Array(HD_DATA_BYTES);
  const dv = new DataView(data.buffer);
  dv.setUint32(0, hd.partitionNumber, true);
  dv.setBigUint64(4, hd.start, true);
  dv.setBigUint64(12, hd.size, true);
  data.set(hd.signature, 20);
  data[36] = hd.mbrType;
  data[37] = hd.signatureType;
  return { type: MEDIA_DEVICE_PATH, subType: MEDIA_HARDDRIVE_DP, data };
}

/** The Hard Drive node of a path (the first one), or undefined when it has none. */
export function hardDriveOf(nodes: readonly DevicePathNode[]): HardDrive | undefined {
  const n = nodes.find((x) => isNode(x, MEDIA_HARDDRIVE_DP));
  if (!n) return undefined;
  if (n.data.length !== HD_DATA_BYTES) throw new LoadOptionError(`device path: an HD() node of ${n.data.length + 4} bytes, expected ${HD_DATA_BYTES + 4}`);
  const dv = new DataView(n.data.buffer, n.data.byteOffset, n.data.byteLength);
  return {
    partitionNumber: dv.getUint32(0, true),
    start: dv.getBigUint64(4, true),
    size: dv.getBigUint64(12, true),
    signature: n.data.slice(20, 36),
    mbrType: n.data[36]!,
    signatureType: n.data[37]!,
  };
}

export function sameHardDrive(a: HardDrive, b: HardDrive): boolean {
  return (
    a.partitionNumber === b.partitionNumber &&
    a.start === b.start &&
    a.size === b.size &&
    a.mbrType === b.mbrType &&
    a.signatureType === b.signatureType &&
    Buffer.from(a.signature).equals(Buffer.from(b.signature))
  );
}

export function filePathNode(path: string): DevicePathNode {
  return { type: MEDIA_DEVICE_PATH, subType: MEDIA_FILEPATH_DP, data: new Uint8Array(Buffer.from(`${path}\0`, "utf16le")) };
}

const fileText = (n: DevicePathNode): string => Buffer.from(n.data).toString("utf16le").replace(/\0+$/, "");

/** The file path after the HD() node (File Path nodes joined with `\`), or undefined when there is none. */
export function loaderPathOf(nodes: readonly DevicePathNode[]): string | undefined {
  const hd = nodes.findIndex((x) => isNode(x, MEDIA_HARDDRIVE_DP));
  const parts = nodes
    .slice(hd + 1)
    .filter((x) => isNode(x, MEDIA_FILEPATH_DP))
    .map(fileText);
  if (parts.length === 0) return undefined;
  return parts.reduce((acc, p) => (acc === "" || acc.endsWith("\\") || p.startsWith("\\") ? acc + p : `${acc}\\${p}`), "");
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`;

/** efivar's text of a path (efidp_format_device_path): HD(1,GPT,<guid>,0x800,0x80000)/File(\EFI\...); other nodes as Path(type,subtype). */
export function formatDevicePath(nodes: readonly DevicePathNode[]): string {
  return nodes
    .map((n) => {
      if (isNode(n, MEDIA_FILEPATH_DP)) return `File(${fileText(n)})`;
      if (isNode(n, MEDIA_HARDDRIVE_DP) && n.data.length === HD_DATA_BYTES) {
        const hd = hardDriveOf([n])!;
        const sig =
          hd.signatureType === SIGNATURE_TYPE_GUID
            ? `GPT,${guidText(hd.signature)}`
            : `${hd.signatureType === 1 ? "MBR" : "NONE"},${hex(new DataView(hd.signature.buffer, hd.signature.byteOffset).getUint32(0, true))}`;
        return `HD(${hd.partitionNumber},${sig},${hex(hd.start)},${hex(hd.size)})`;
      }
      return `Path(${n.type},${n.subType})`;
    })
    .join("/");
}
