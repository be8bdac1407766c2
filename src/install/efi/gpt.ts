/**
 * The GUID Partition Table as the firmware reads it (UEFI 2.10 §5.3), only as far as an
 * HD() node needs it: the header's place of the entry array and the entry of one
 * partition (its unique GUID, first and last LBA). Pure: the caller reads the bytes.
 *
 * Header (LBA 1, the backup at the disk's last LBA): "EFI PART", UINT32 Revision,
 * UINT32 HeaderSize, UINT32 HeaderCRC32 (over HeaderSize bytes, itself zeroed), UINT32
 * reserved, UINT64 MyLBA, AlternateLBA, FirstUsableLBA, LastUsableLBA, GUID DiskGUID,
 * UINT64 PartitionEntryLBA, UINT32 NumberOfPartitionEntries, SizeOfPartitionEntry,
 * PartitionEntryArrayCRC32. Entry: GUID PartitionTypeGUID, GUID UniquePartitionGUID,
 * UINT64 StartingLBA, EndingLBA (inclusive), Attributes, CHAR16 PartitionName[36].
 * Linux numbers a GPT partition by its entry's index + 1 (block/partitions/efi.c).
 */
import { crc32 } from "node:zlib";

export class GptError extends Error {
  override readonly name = "GptError";
}

export interface GptHeader {
  readonly myLba: bigint;
  readonly entryLba: bigint;
  readonly entries: number;
  readonly entrySize: number;
  readonly entriesCrc: number;
}

export interface GptEntry {
  readonly typeGuid: Uint8Array;
  readonly uniqueGuid: Uint8Array;
  readonly firstLba: bigint;
  readonly lastLba: bigint;
}

const SIGNATURE = "EFI PART";
const MIN_HEADER = 92;
const MIN_ENTRY = 128;
/** More would be no table a partitioner wrote (sgdisk: 128 entries of 128 bytes = 16 KiB). */
export const MAX_ENTRY_ARRAY_BYTES = 1 << 20;

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** A header from the block it sits in; `where` names it in errors ("primary GPT header of /dev/sda"). */
export function parseGptHeader(block: Uint8Array, where: string): GptHeader {
  if (block.length < MIN_HEADER) throw new GptError(`${where}: ${block.length} bytes, expected at least ${MIN_HEADER}`);
  if (Buffer.from(block.subarray(0, 8)).toString("latin1") !== SIGNATURE) throw new GptError(`${where}: no "EFI PART" signature`);
  const dv = view(block);
  const size = dv.getUint32(12, true);
  if (size < MIN_HEADER || size > block.length) throw new GptError(`${where}: HeaderSize ${size}, expected ${MIN_HEADER}..${block.length}`);
  const copy = Uint8Array.from(block.subarray(0, size));
  view(copy).setUint32(16, 0, true);
  const crc = dv.getUint32(16, true);
  if (crc32(copy) !== crc) throw new GptError(`${where}: header CRC32 ${crc.toString(16)} does not match its bytes (${crc32(copy).toString(16)})`);
  const entries = dv.getUint32(80, true);
  const entrySize = dv.getUint32(84, true);
  if (entrySize < MIN_ENTRY || entrySize % 8 !== 0) throw new GptError(`${where}: SizeOfPartitionEntry ${entrySize}, expected a multiple of 8 from ${MIN_ENTRY}`);
  if (entries * entrySize > MAX_ENTRY_ARRAY_BYTES) throw new GptError(`${where}: ${entries} entries of ${entrySize} bytes, more than ${MAX_ENTRY_ARRAY_BYTES} bytes`);
  return { myLba: dv.getBigUint64(24, true), entryLba: dv.getBigUint64(72, true), entries, entrySize, entriesCrc: dv.getUint32(88, true) };
}

/** Entry `index` (0-based) of the entry array the header describes (`array`: its entries * entrySize bytes). */
export function gptEntry(h: GptHeader, array: Uint8Array, index: number, where: string): GptEntry {
  const bytes = h.entries * h.entrySize;
  if (array.length < bytes) throw new GptError(`${where}: entry array of ${array.length} bytes, the header says ${bytes}`);
  const crc = crc32(array.subarray(0, bytes));
  if (crc !== h.entriesCrc) throw new GptError(`${where}: entry array CRC32 ${crc.toString(16)}, the header says ${h.entriesCrc.toString(16)}`);
  if (index < 0 || index >= h.entries) throw new GptError(`${where}: no entry ${index + 1} (the table has ${h.entries})`);
  const e = array.subarray(index * h.entrySize, (index + 1) * h.entrySize);
  const typeGuid = e.slice(0, 16);
  if (typeGuid.every((b) => b === 0)) throw new GptError(`${where}: entry ${index + 1} is unused`);
  return { typeGuid, uniqueGuid: e.slice(16, 32), firstLba: view(e).getBigUint64(32, true), lastLba: view(e).getBigUint64(40, true) };
}
