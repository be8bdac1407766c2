/**
 * Physical memory from the memory blocks of /sys/devices/system/memory (the kernel's
 * memory hotplug interface, CONFIG_MEMORY_HOTPLUG): the blocks whose `state` is
 * `online` times `block_size_bytes` (hex, no 0x). This is what metal-hammer registers:
 * ghw's first way to TotalPhysicalBytes (jaypipes/ghw@ae895d6
 * pkg/memory/memory_linux.go:143-152, :154-175, :183-214). Its rules, kept here: a block
 * is an entry whose name ends in `memory<digits>`; an unreadable block size, listing or
 * state makes the whole count unusable (ghw then reads the boot line); no online block
 * counts 0 bytes (ghw then takes MemTotal, not the boot line). Blocks are 128 MiB on
 * x86-64 (up to 2 GiB on large machines), so the count is the installed memory in whole
 * blocks: QEMU `-m 1024` is 8 blocks of 128 MiB, exactly 1 GiB. Pure.
 */

/** What read.ts found in /sys/devices/system/memory; undefined fields could not be read. */
export interface MemoryBlocksFacts {
  /** block_size_bytes as read. */
  readonly blockSize: string | undefined;
  /** Every entry of the directory with its `state` (undefined: unreadable). */
  readonly blocks: readonly { readonly name: string; readonly state: string | undefined }[];
}

export type MemoryBlocksCount =
  | { readonly ok: true; readonly bytes: number; readonly online: number; readonly blockBytes: number }
  | { readonly ok: false; readonly reason: string };

const BLOCK_NAME = /memory\d+$/;

/** An entry of the directory that is a memory block (ghw: `memory\d+$`, unanchored at the start). */
export const isMemoryBlockName = (name: string): boolean => BLOCK_NAME.test(name);
const HEX = /^[0-9a-fA-F]+$/;

export function countMemoryBlocks(facts: MemoryBlocksFacts | undefined): MemoryBlocksCount {
  if (!facts) return { ok: false, reason: "cannot be listed" };
  // ghw: strconv.ParseUint(strings.TrimSpace(s), 16, 64): hex digits only, at most 64 bits.
  const size = facts.blockSize?.trim() ?? "";
  if (!HEX.test(size)) return { ok: false, reason: facts.blockSize === undefined ? "no block_size_bytes" : `block_size_bytes ${JSON.stringify(size)} is not hex` };
  const blockBytes = Number.parseInt(size, 16);
  if (!Number.isSafeInteger(blockBytes)) return { ok: false, reason: `block_size_bytes ${size} is too large` };
  let online = 0;
  for (const b of facts.blocks) {
    if (!isMemoryBlockName(b.name)) continue;
    if (b.state === undefined) return { ok: false, reason: `${b.name}/state unreadable` };
    if (b.state.trim() === "online") online++;
  }
  const bytes = online * blockBytes;
  if (!Number.isSafeInteger(bytes)) return { ok: false, reason: `${online} blocks of ${blockBytes} bytes overflow` };
  return { ok: true, bytes, online, blockBytes };
}
